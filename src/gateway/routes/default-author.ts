/**
 * Coding agents send bare model names (Claude Code `claude-sonnet-4-5`, Codex `gpt-5-codex`).
 * A name without a slash is read as `{author}/{name}` with the author the endpoint implies;
 * `{author}/{model}` ids pass unchanged, as on every gateway route.
 */
export function withDefaultAuthor(model: string, author: string): string {
  return model.includes('/') ? model : `${author}/${model}`;
}
