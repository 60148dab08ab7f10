import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';

/** Arrays and objects nested deeper than this are refused unless GATEWAY_JSON_MAX_DEPTH says otherwise. */
export const DEFAULT_JSON_MAX_DEPTH = 64;

export interface JsonBodyOptions {
  bodyLimitBytes: number;
  /** Nesting of arrays and objects allowed in a body (the top-level value is depth 1). */
  maxDepth: number;
  /** Parse every content type as JSON (curl -d, sendBeacon's text/plain) instead of application/json only. */
  lenient: boolean;
}

/**
 * Every listener's JSON body parser. Before JSON.parse runs, one pass over the text (no
 * recursion, so no depth can overflow the stack) refuses nesting deeper than `maxDepth` and
 * number literals too large for a double (`1e400` would parse as Infinity). Later code walks
 * bodies recursively (schema validation, compression, JSON.stringify for the upstream): a
 * 10,000-deep body made those throw RangeError, answered as a 500 or 502. Prototype-poisoning
 * keys are dropped. Every refusal is a 400 the surface answers in its own envelope (toProblem
 * maps FST_ERR_CTP_INVALID_JSON_BODY to `invalid_json`).
 */
export function registerJsonBodyParser(app: FastifyInstance, options: JsonBodyOptions): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    options.lenient ? '*' : 'application/json',
    { parseAs: 'string', bodyLimit: options.bodyLimitBytes },
    jsonBodyParser(options),
  );
}

type BodyParser = (
  request: FastifyRequest,
  body: string | Buffer,
  done: (err: Error | null, body?: unknown) => void,
) => void;

/** The parse callback of registerJsonBodyParser, for a route scope that wraps it (routes/compress.ts). */
export function jsonBodyParser(options: Pick<JsonBodyOptions, 'maxDepth' | 'lenient'>): BodyParser {
  return (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.length === 0) {
      // A lenient listener takes "no body" for "no JSON"; application/json with nothing is an error.
      if (options.lenient) return done(null, undefined);
      return done(invalidJson('The request body is empty but its content type is application/json.'));
    }
    try {
      done(null, parseJsonText(text, options.maxDepth));
    } catch (error) {
      done(jsonBodyError(error));
    }
  };
}

/** What parseJsonText threw, as the 400 every surface answers with `invalid_json`. */
export function jsonBodyError(error: unknown): FastifyError {
  return error instanceof JsonBodyRejection
    ? invalidJson(error.message)
    : invalidJson(`The request body is not valid JSON: ${(error as Error).message}`);
}

/** A body that is JSON but outside what the service accepts: too deep, or a number out of range. */
export class JsonBodyRejection extends Error {}

/** JSON.parse behind the depth and number checks; throws JsonBodyRejection or JSON.parse's SyntaxError. */
export function parseJsonText(text: string, maxDepth: number): unknown {
  checkJsonText(text, maxDepth);
  // A reviver is called for every key and value, which costs more than the parse itself: it
  // runs only for the rare body whose text could hold one of the keys it removes. Such a key
  // is spelled out or has a \u escape; `includes` rules out most bodies faster than the patterns.
  const suspect =
    (text.includes('__proto__') || text.includes('constructor') || text.includes('\\u')) &&
    (SUSPECT_PROTO_KEY.test(text) || SUSPECT_CONSTRUCTOR_KEY.test(text));
  return suspect ? JSON.parse(text, rejectProtoKeys) : JSON.parse(text);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** A decimal literal with fewer digits than this cannot exceed Number.MAX_VALUE (~1.8e308) without an exponent. */
const LONGEST_SAFE_PLAIN_NUMBER = 300;

/**
 * One pass over the text outside strings: the running nesting depth, and every number literal
 * that could overflow a double (it has an exponent or hundreds of digits) converted to check.
 * Strings are skipped with indexOf, so the cost is mostly that of the structure, not of the
 * text in it. Syntax errors are left to JSON.parse, which reports them with a position.
 */
export function checkJsonText(text: string, maxDepth: number): void {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) return;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > maxDepth)
        throw new JsonBodyRejection(
          `The request body nests arrays and objects more than ${maxDepth} levels deep (at character ${i}).`,
        );
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    } else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      const start = i;
      let exponent = false;
      while (i + 1 < length && isNumberChar(text.charCodeAt(i + 1))) {
        const next = text.charCodeAt(++i);
        if (next === 0x65 || next === 0x45) exponent = true;
      }
      if (exponent || i - start >= LONGEST_SAFE_PLAIN_NUMBER) {
        const literal = text.slice(start, i + 1);
        if (Math.abs(Number(literal)) === Infinity)
          throw new JsonBodyRejection(
            `The request body holds a number too large to represent: ${literal.length > 40 ? `${literal.slice(0, 40)}…` : literal} (at character ${start}).`,
          );
      }
    }
  }
}

/** Digits, sign, decimal point and exponent: the characters a JSON number literal is made of. */
function isNumberChar(c: number): boolean {
  return (c >= DIGIT_0 && c <= DIGIT_9) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === MINUS;
}

/** Index of the quote that closes the string opening at `open`, or -1 when it is never closed. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1) {
    let backslashes = 0;
    for (let k = at - 1; k > open && text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

export function invalidJson(message: string): FastifyError {
  const error = new Error(message) as FastifyError;
  error.statusCode = 400;
  error.code = 'FST_ERR_CTP_INVALID_JSON_BODY';
  return error;
}

/** A `"__proto__":` or `"constructor":` key, literal or with any of its characters \u-escaped (secure-json-parse's patterns). */
const SUSPECT_PROTO_KEY =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const SUSPECT_CONSTRUCTOR_KEY =
  /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;

/** Prototype-poisoning keys have no meaning in any request this service accepts. */
function rejectProtoKeys(key: string, value: unknown): unknown {
  if (
    key === '__proto__' ||
    (key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value)
  ) {
    return undefined;
  }
  return value;
}
