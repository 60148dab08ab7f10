// Which per-command filter an output gets: from the agent's tool kind and, for shells, from
// the command line itself.
import { BoundedCache, registerCache } from '../cache.js';
import type { ToolKind } from '../types.js';

export type OutputKind =
  'test' | 'git-diff' | 'git-status' | 'git-log' | 'install' | 'build' | 'search' | 'list' | 'read' | 'shell' | 'other';

const COMMANDS: [OutputKind, RegExp][] = [
  [
    'test',
    /^(?:pytest|py\.test|python3? -m (?:pytest|unittest)|nosetests|tox|jest|vitest|mocha|ava|go test|cargo (?:test|nextest)|(?:npm|pnpm|yarn|bun)(?: run)? test|npx (?:jest|vitest|mocha)|rspec|phpunit|ctest|mvn test|gradlew? test|dotnet test|make (?:test|check))\b/,
  ],
  [
    'install',
    /^(?:pip3? install|python3? -m pip install|uv (?:pip install|sync|add)|poetry (?:install|add)|(?:npm|pnpm|bun) (?:install|i|ci|add)\b|yarn(?: install| add|$)|apt(?:-get)? (?:install|update)|brew install|cargo (?:fetch|install)|go (?:get|mod download)|gem install|bundle install|conda install|composer install)/,
  ],
  ['git-diff', /^git (?:diff|show)\b/],
  ['git-status', /^git status\b/],
  ['git-log', /^git (?:log|reflog)\b/],
  [
    'build',
    /^(?:tsc|npx tsc|eslint|npx eslint|prettier|gcc|g\+\+|clang|make|cmake|ninja|cargo (?:build|check|clippy)|go (?:build|vet)|mypy|flake8|ruff|pylint|black|biome|rustc|javac|mvn|gradlew?|webpack|vite build|next build|(?:npm|pnpm|yarn) run (?:build|lint|typecheck)|golangci-lint)\b/,
  ],
  // Codex's patch tool run through the shell: its result is an edit's, as Claude Code's Edit.
  ['other', /^(?:apply_patch|applypatch)\b/],
  ['list', /^(?:find|ls|tree|fd|git ls-files|rg --files)\b/],
  ['search', /^(?:grep|egrep|rg|ag|ack|git grep)\b/],
];

// Commands that print a file, or the lines a range names (`sed -n '61,141p' f`, `nl -ba f`,
// `head -n 40 f`): a read when they open a file, a filter of the stage before when piped into.
const FILE_READ = /^(?:cat|head|tail|nl|bat|sed -n|awk 'NR)\b/;
// `cat <<EOF > f`, `cat > f`: writing a file, not reading one.
const WRITES_FILE = /^cat\s*(?:<<|>)/;
// A search piped after a read (`nl -ba f | grep -n x`) makes the output a search.
const SEARCH = /^(?:grep|egrep|rg|ag|ack)\b/;

/** The commands of `cd x && FOO=1 timeout 60 pytest -q | tail`: each pipeline's stages, `cd` left out. */
function pipelines(command: string): string[][] {
  return command
    .split(/&&|\|\||;|\n/)
    .map((pipeline) =>
      pipeline
        .split('|')
        .map((s) => s.trim().replace(/^(?:(?:sudo|time|env|nohup)\s+|timeout\s+\S+\s+|[A-Z_][A-Z0-9_]*=\S*\s+)+/, ''))
        .filter((s) => s.length > 0),
    )
    .filter((stages) => stages.length > 0 && !/^cd\b/.test(stages[0]!));
}

function classifyPipeline(stages: string[]): OutputKind | undefined {
  const first = stages[0]!;
  if (FILE_READ.test(first) && !WRITES_FILE.test(first))
    return stages.slice(1).some((s) => SEARCH.test(s)) ? 'search' : 'read';
  for (const [kind, re] of COMMANDS) if (re.test(first)) return kind;
  return undefined;
}

function classify(command: string): OutputKind {
  for (const stages of pipelines(command)) {
    const kind = classifyPipeline(stages);
    if (kind) return kind;
  }
  return 'shell';
}

// Every request re-sends every earlier command.
const classified = registerCache(new BoundedCache<OutputKind>(1024 * 1024));

export function classifyCommand(command: string): OutputKind {
  return classified.getOrCompute(command, classify, () => 16);
}

/** Codex passes argv (`["bash","-lc","…"]`); others a string. */
export function commandText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    const argv = value as string[];
    if (argv.length >= 3 && /^(?:ba|z)?sh$/.test(argv[0]!.replace(/^.*\//, '')) && /^-\w*c$/.test(argv[1]!))
      return argv.slice(2).join(' ');
    return argv.join(' ');
  }
  return undefined;
}

export function outputKind(tool: ToolKind, command: string | undefined): OutputKind {
  switch (tool) {
    case 'shell':
      return command === undefined ? 'shell' : classifyCommand(command);
    case 'read':
    case 'search':
    case 'list':
      return tool;
    case 'edit':
    case 'other':
      return 'other';
  }
}
