import { COMPRESSION_MODELS } from '../canonical/gateway-fields.js';
import type { ToolKind } from './tool-kind.js';

// One list for the request schemas and the bundles: canonical/gateway-fields.ts.
export { COMPRESSION_MODELS };
export type BundleName = (typeof COMPRESSION_MODELS)[number];

export function isCompressionModel(value: unknown): value is BundleName {
  return typeof value === 'string' && (COMPRESSION_MODELS as readonly string[]).includes(value);
}

export interface Bundle {
  name: BundleName | 'generic';
  /** Exact tool names of the agent; looked up before the generic table. */
  tools: Record<string, ToolKind>;
  /** Argument names that hold the shell command or the file path, in order of preference. */
  commandArgs: string[];
  pathArgs: string[];
  /**
   * Whether line-number prefixes in file views may be removed. `auto` keeps them when the
   * request's own tools or system prompt address lines by number (SWE-agent `edit 10:20`).
   */
  stripLineNumbers: boolean | 'auto';
  /** The latest assistant tool turns whose outputs a history rewrite never masks. */
  keepTurns: number;
}

// Lower-case names seen across agents; used when no bundle is given and as a fallback.
const GENERIC_TOOLS: Record<string, ToolKind> = {
  bash: 'shell',
  shell: 'shell',
  exec_command: 'shell',
  shell_command: 'shell',
  run: 'shell',
  exec: 'shell',
  execute: 'shell',
  execute_command: 'shell',
  run_command: 'shell',
  run_shell_command: 'shell',
  run_terminal_cmd: 'shell',
  terminal: 'shell',
  command: 'shell',
  local_shell: 'shell',
  read: 'read',
  read_file: 'read',
  open: 'read',
  view: 'read',
  view_file: 'read',
  cat: 'read',
  goto: 'read',
  scroll_up: 'read',
  scroll_down: 'read',
  read_many_files: 'read',
  grep: 'search',
  search: 'search',
  search_dir: 'search',
  search_file: 'search',
  grep_search: 'search',
  codebase_search: 'search',
  ripgrep: 'search',
  rg: 'search',
  grep_files: 'search',
  glob: 'list',
  find: 'list',
  find_file: 'list',
  ls: 'list',
  list: 'list',
  list_dir: 'list',
  list_files: 'list',
  file_search: 'list',
  edit: 'edit',
  multiedit: 'edit',
  write: 'edit',
  create: 'edit',
  insert: 'edit',
  edit_file: 'edit',
  apply_patch: 'edit',
  patch: 'edit',
  search_replace: 'edit',
  str_replace_editor: 'edit',
  str_replace_based_edit_tool: 'edit',
  write_file: 'edit',
  notebookedit: 'edit',
};

// The outputs of the latest 4 turns are never masked (arXiv 2508.21433 keeps about ten
// observations; 4 is what the masking window kept at its narrowest before issue 19).
const KEEP_TURNS = 4;

export const GENERIC_BUNDLE: Bundle = {
  name: 'generic',
  tools: {},
  commandArgs: ['command', 'cmd', 'script', 'commands'],
  pathArgs: ['file_path', 'path', 'filePath', 'target_file', 'filename', 'file'],
  stripLineNumbers: 'auto',
  keepTurns: KEEP_TURNS,
};

export const BUNDLES: Record<BundleName, Bundle> = {
  // Claude Code: Read prints `   12→line`; Edit matches strings, so line numbers are display only.
  claude: {
    ...GENERIC_BUNDLE,
    name: 'claude',
    tools: {
      Bash: 'shell',
      BashOutput: 'shell',
      Read: 'read',
      Grep: 'search',
      Glob: 'list',
      LS: 'list',
      Edit: 'edit',
      MultiEdit: 'edit',
      Write: 'edit',
      NotebookEdit: 'edit',
      WebFetch: 'other',
      WebSearch: 'other',
      Task: 'other',
      TodoWrite: 'other',
    },
    commandArgs: ['command'],
    pathArgs: ['file_path', 'path', 'notebook_path'],
    stripLineNumbers: true,
  },
  // Codex CLI: `shell` takes an argv array (`["bash","-lc","…"]`), edits go through apply_patch.
  codex: {
    ...GENERIC_BUNDLE,
    name: 'codex',
    tools: {
      shell: 'shell',
      shell_command: 'shell',
      local_shell: 'shell',
      exec_command: 'shell',
      read_file: 'read',
      list_dir: 'list',
      grep_files: 'search',
      apply_patch: 'edit',
      view_image: 'other',
      update_plan: 'other',
    },
    commandArgs: ['command', 'cmd'],
    pathArgs: ['path', 'file_path'],
    stripLineNumbers: true,
  },
  // OpenCode: read prints `00012| line`; edit takes oldString/newString.
  opencode: {
    ...GENERIC_BUNDLE,
    name: 'opencode',
    tools: {
      bash: 'shell',
      read: 'read',
      grep: 'search',
      glob: 'list',
      list: 'list',
      edit: 'edit',
      write: 'edit',
      patch: 'edit',
      multiedit: 'edit',
      webfetch: 'other',
      todowrite: 'other',
      todoread: 'other',
      task: 'other',
    },
    commandArgs: ['command'],
    pathArgs: ['filePath', 'path'],
    stripLineNumbers: true,
  },
  // Cursor: run_terminal_cmd output, read_file with line numbers, edit_file by content.
  cursor: {
    ...GENERIC_BUNDLE,
    name: 'cursor',
    tools: {
      run_terminal_cmd: 'shell',
      read_file: 'read',
      grep_search: 'search',
      codebase_search: 'search',
      file_search: 'list',
      list_dir: 'list',
      edit_file: 'edit',
      search_replace: 'edit',
      delete_file: 'edit',
      reapply: 'edit',
      web_search: 'other',
    },
    commandArgs: ['command'],
    pathArgs: ['target_file', 'relative_workspace_path', 'path'],
    stripLineNumbers: true,
  },
};

export function bundleFor(name: BundleName | undefined): Bundle {
  return name ? BUNDLES[name] : GENERIC_BUNDLE;
}

export function toolKind(bundle: Bundle, toolName: string): ToolKind {
  return bundle.tools[toolName] ?? GENERIC_TOOLS[toolName.toLowerCase()] ?? 'other';
}
