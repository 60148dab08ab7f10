import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

/** Loaded with the first pattern compiled: an instance without regex proxy routes never loads the engine (~260 KB). */
let re2: typeof RE2JS | undefined;
const engine = () => (re2 ??= (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS);

/** Why RE2 refused a pattern, in its own words (`invalid or unsupported Perl syntax: (?=`). */
export class RoutePatternError extends Error {}

/**
 * A regex route's `path` compiled by re2js, a port of RE2: matching takes time linear in the
 * input whatever the pattern, so `(a|aa)+` or `(.*a){12}` cannot backtrack catastrophically the
 * way they do in a backtracking engine (JavaScript's RegExp). The price is RE2's syntax: no
 * back-references and no lookaround, which have no linear-time algorithm; such patterns throw
 * RoutePatternError, and so does a repeat count above 1,000. Every place that checks or matches
 * a proxy route pattern goes through here.
 */
export function compileRoutePattern(pattern: string): RE2JS {
  try {
    return engine().compile(pattern);
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    throw new RoutePatternError(reason);
  }
}
