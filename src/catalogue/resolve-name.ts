/**
 * Model names as clients send them → a catalogue id. Agents and SDKs send the provider's own
 * spellings, not the catalogue's `{author}/{model}`: dated snapshots (`claude-haiku-4-5-20251001`,
 * `gpt-6.1-sol-2026-09-29`), `-latest`, short aliases (`sonnet`), cloud spellings
 * (`us.anthropic.claude-opus-4-5-20251101-v1:0`, `claude-opus-4-5@20251101`), a `[1m]` context
 * suffix, dotted versions (`claude-opus-4.5`). Pure: the catalogue passes what it knows.
 */
export interface NameResolution {
  id: string;
  /** How the name was matched; `exact` means the name was already a catalogue id. */
  via: 'exact' | 'normalised' | 'alias' | 'author';
}

export interface ResolveInput {
  has(id: string): boolean;
  /** Catalogue ids by bare model name (the part after the author), for names without an author. */
  authorsOf(model: string): readonly string[];
  aliases: Readonly<Record<string, string>>;
}

const DATE_SUFFIX = /(?:-|@)(?:\d{8}|\d{4}-\d{2}-\d{2})$/;
const CLOUD_PREFIX = /^(?:(?:us|eu|apac|global|jp|au)\.)?(?:anthropic|openai)\./;
const CLOUD_VERSION = /-v\d+(?::\d+)?$/;

/** The spellings of one model name, most literal first. */
function candidates(model: string): string[] {
  const out: string[] = [];
  const add = (name: string): void => {
    if (name && !out.includes(name)) out.push(name);
  };
  let name = model.trim();
  add(name);
  name = name.toLowerCase().replace(/\[1m\]$/, '');
  add(name);
  name = name.replace(CLOUD_PREFIX, '').replace(CLOUD_VERSION, '');
  add(name);
  name = name.replace(/-latest$/, '').replace(DATE_SUFFIX, '');
  add(name);
  // Claude versions are written with dashes in ids and with dots in prose and some clients.
  if (name.startsWith('claude-')) add(name.replace(/(\d)\.(\d)/g, '$1-$2'));
  return out;
}

function split(name: string): { author: string | undefined; model: string } {
  const slash = name.indexOf('/');
  return slash < 0
    ? { author: undefined, model: name }
    : { author: name.slice(0, slash), model: name.slice(slash + 1) };
}

/**
 * `defaultAuthor` is the author a bare name most likely means on the route it came in on
 * (`anthropic` on /v1/messages); a bare name that only one author has resolves without it.
 */
export function resolveModelName(
  name: string,
  input: ResolveInput,
  defaultAuthor?: string,
): NameResolution | undefined {
  if (input.has(name)) return { id: name, via: 'exact' };
  const { author, model } = split(name);
  const authors = author ? [author] : defaultAuthor ? [defaultAuthor] : [];
  for (const candidate of candidates(model)) {
    for (const a of authors) {
      if (input.has(`${a}/${candidate}`)) return { id: `${a}/${candidate}`, via: 'normalised' };
    }
    const alias = input.aliases[candidate];
    if (alias && input.has(alias) && (!author || alias.startsWith(`${author}/`))) return { id: alias, via: 'alias' };
    if (!author) {
      const owners = input.authorsOf(candidate);
      if (owners.length === 1) return { id: owners[0]!, via: 'author' };
    }
  }
  return undefined;
}
