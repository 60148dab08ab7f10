import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { get_encoding } from 'tiktoken';
import { readSse } from '../../src/providers/http/read-sse.js';
import { SseWriter, sseData, sseNamedEvent } from '../../src/pipeline/sse-writer.js';
import { countRequestTokens, countTextTokens, TOKENIZERS, type CountableRequest } from '../../src/tokenize/index.js';
import { compressPayload, CompressionInputError, COMPRESSION_MODELS } from '../../src/compress/index.js';
import type { SseEvent } from '../../src/providers/types.js';
import {
  SEED,
  runs,
  hostile,
  jsonish,
  weirdString,
  fields,
  maybe,
  messages,
  tools,
  compressBody,
} from './arbitraries.js';

/**
 * Property-based tests of the engines behind the routes (issue 9, item 4; issue 16, item 9): the
 * SSE parser and writers, the tokenizer and its front end, and the compressor, on arbitrary input. The corpus in test/fuzz/corpus/
 * (inputs that once broke something, and interesting seeds) is replayed first on every run.
 * Reproduce a failure with FUZZ_SEED=<seed>; add the failing input to the corpus.
 */
const RUNS = runs(300);
const CORPUS = join(dirname(fileURLToPath(import.meta.url)), 'corpus');
const corpus = <T>(file: string): T[] => (JSON.parse(readFileSync(join(CORPUS, file), 'utf8')) as { cases: T[] }).cases;
const options = { numRuns: RUNS, seed: SEED, endOnFailure: true, includeErrorInReport: true };

// ---- SSE parser -------------------------------------------------------------------------------

async function* chunksOf(pieces: Array<Uint8Array | string>): AsyncGenerator<Uint8Array | string> {
  for (const piece of pieces) yield piece;
}
async function parse(pieces: Array<Uint8Array | string>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSse(chunksOf(pieces))) events.push(event);
  return events;
}
/** Cuts bytes at the given offsets (anywhere, inside multi-byte characters too). */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

const sseLine = fc.oneof(
  fc.string().map((s) => `data: ${s}`),
  fc.string({ unit: 'grapheme' }).map((s) => `data:${s}`),
  fc.constantFrom(
    '',
    'data: [DONE]',
    ': comment',
    'event: message_delta',
    'id: 7',
    'retry: 10',
    'data',
    'event:',
    '\ufeffdata: bom',
  ),
  fc.string(),
);
const lineEnd = fc.constantFrom('\n', '\r\n', '\r');
const sseText = fc
  .array(fc.tuple(sseLine, lineEnd), { maxLength: 30 })
  .map((lines) => lines.map(([l, e]) => l + e).join(''));

describe(`SSE parser (readSse) on arbitrary streams (seed ${SEED})`, () => {
  it('replays the corpus: parses, and cutting every byte apart gives the same events', async () => {
    for (const entry of corpus<{ note: string; chunks?: string[]; base64Chunks?: string[] }>('sse.json')) {
      const pieces = entry.chunks
        ? entry.chunks.map((c) => new TextEncoder().encode(c))
        : entry.base64Chunks!.map((c) => Buffer.from(c, 'base64'));
      const whole = Buffer.concat(pieces);
      const expected = await parse([whole]);
      assert.deepEqual(await parse(pieces), expected, entry.note);
      assert.deepEqual(await parse([...whole].map((b) => Uint8Array.of(b))), expected, `${entry.note} (byte by byte)`);
      if (entry.chunks) assert.deepEqual(await parse(entry.chunks), expected, `${entry.note} (text chunks)`);
    }
  });

  it('never throws, and how the bytes are cut never changes the events', async () => {
    await fc.assert(
      fc.asyncProperty(sseText, fc.array(fc.nat(), { maxLength: 8 }), async (text, offsets) => {
        const bytes = new TextEncoder().encode(text);
        const expected = await parse([bytes]);
        assert.deepEqual(await parse(cut(bytes, offsets)), expected);
        assert.deepEqual(await parse([text]), expected, 'string chunks parse like bytes');
        for (const event of expected) assert.equal(typeof event.data, 'string');
      }),
      options,
    );
  });

  it('arbitrary bytes (invalid UTF-8 included) never throw', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 300 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        async (bytes, offsets) => {
          assert.deepEqual(await parse(cut(bytes, offsets)), await parse([bytes]));
        },
      ),
      options,
    );
  });
});

// ---- SSE writers ------------------------------------------------------------------------------

/** A ServerResponse that takes writes into a string and, when told to, reports a full buffer. */
class RecordingResponse extends EventEmitter {
  text = '';
  destroyed = false;
  ended = false;
  constructor(private readonly fullAfter: boolean[]) {
    super();
  }
  writeHead(): this {
    return this;
  }
  flushHeaders(): void {}
  write(chunk: string): boolean {
    this.text += chunk;
    const full = this.fullAfter.shift() ?? false;
    // A full buffer drains a little later, as a socket does.
    if (full) setImmediate(() => this.emit('drain'));
    return !full;
  }
  end(chunk?: string): void {
    if (chunk) this.text += chunk;
    this.ended = true;
  }
}

/** Any value an event may carry: text with CR, LF, U+2028 and lone surrogates included. */
const eventText = fc.oneof(
  fc.string(),
  fc.constantFrom('\r', '\n', '\r\n', '\u2028\u2029', '\ud800', 'data: x\n\nevent: y', '[DONE]', ''),
);
const eventValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record({ type: fc.constantFrom('message_delta', 'response.output_text.delta'), text: eventText }),
  fc.dictionary(eventText, eventText, { maxKeys: 3 }),
);
const eventName = fc.constantFrom('message_start', 'content_block_delta', 'response.completed', 'error', 'ping');
/** The value as it comes back from JSON: what a client parsing the event gets. */
const viaJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe(`SSE writers (sseData, sseNamedEvent, SseWriter) read back by readSse (seed ${SEED})`, () => {
  it('every event written is read back whole, with its name, however the bytes are cut', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.option(eventName, { nil: undefined }), eventValue), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (events, offsets) => {
          const text = events.map(([name, value]) => (name ? sseNamedEvent(name, value) : sseData(value))).join('');
          const read = await parse(cut(new TextEncoder().encode(text), offsets));
          assert.equal(read.length, events.length, text);
          read.forEach((event, i) => {
            const [name, value] = events[i]!;
            assert.equal(event.event, name);
            assert.deepEqual(JSON.parse(event.data), viaJson(value));
          });
        },
      ),
      options,
    );
  });

  it('SseWriter under random backpressure: every event, in order, then [DONE], nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.option(eventName, { nil: undefined }), eventValue), { maxLength: 8 }),
        fc.array(fc.boolean(), { maxLength: 10 }),
        fc.boolean(),
        async (events, fullAfter, holdTail) => {
          const response = new RecordingResponse(fullAfter);
          const writer = new SseWriter(response as unknown as ServerResponse);
          writer.start({ 'x-request-id': 'req_fuzz' });
          for (const [name, value] of events) await (name ? writer.sendEvent(name, value) : writer.send(value));
          if (holdTail) writer.holdForEnd();
          writer.done();
          assert.ok(response.ended);
          const read = await parse([response.text]);
          assert.equal(read.length, events.length + 1, response.text);
          assert.equal(read.at(-1)!.data, '[DONE]');
          events.forEach(([name, value], i) => {
            assert.equal(read[i]!.event, name);
            assert.deepEqual(JSON.parse(read[i]!.data), viaJson(value));
          });
        },
      ),
      { ...options, numRuns: Math.ceil(RUNS / 2) },
    );
  });

  it('an event name with CR or LF is refused, never written', () => {
    for (const name of ['a\nb', 'a\r', '\n'])
      assert.throws(() => sseNamedEvent(name, {}), /CR or LF/, JSON.stringify(name));
  });
});

// ---- tokenizer --------------------------------------------------------------------------------

const references = Object.fromEntries(TOKENIZERS.map((name) => [name, get_encoding(name)]));
/** tiktoken's own count, the reference every count must equal. */
const reference = (text: string, tokenizer: (typeof TOKENIZERS)[number]) =>
  references[tokenizer]!.encode_ordinary(text).length;

/**
 * Texts shaped like the attack of issue 16 row 1 (one long run of one character class, which
 * makes BPE merging quadratic) and their neighbours, kept to 1,000 characters a run so CI
 * stays fast whatever the merge loop's complexity; bench/ and FUZZ_RUNS go further.
 */
const run = fc
  .tuple(
    fc.constantFrom(
      'a',
      'Z',
      ' ',
      '\n',
      '\t',
      '1',
      '日',
      '한',
      'é',
      '🙂',
      '.',
      '-',
      '_',
      '\u0301',
      'ab',
      '<|endoftext|>',
    ),
    fc.integer({ min: 1, max: 1_000 }),
  )
  // At most 1,000 characters, whatever the unit's length.
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));
const adversarialText = fc.oneof(
  run,
  fc.array(run, { minLength: 2, maxLength: 4 }).map((runs) => runs.join('')),
  fc.tuple(fc.string({ maxLength: 50 }), run, fc.string({ maxLength: 50 })).map((parts) => parts.join('')),
);

describe(`tokenizer (countTextTokens) against tiktoken on adversarial text (seed ${SEED})`, () => {
  it('replays the corpus', () => {
    for (const entry of corpus<{ note: string; unit?: string; repeat?: number; text?: string }>('tokenize.json')) {
      const text = entry.text ?? entry.unit!.repeat(entry.repeat!);
      for (const tokenizer of TOKENIZERS)
        assert.equal(countTextTokens(text, tokenizer), reference(text, tokenizer), `${entry.note} (${tokenizer})`);
    }
  });

  it('long runs of one character class count exactly as tiktoken counts them', () => {
    fc.assert(
      fc.property(adversarialText, fc.constantFrom(...TOKENIZERS), (text, tokenizer) => {
        assert.equal(countTextTokens(text, tokenizer), reference(text, tokenizer), JSON.stringify(text.slice(0, 80)));
      }),
      { ...options, numRuns: Math.ceil(RUNS / 5) },
    );
  });
});

// ---- tokenizer front end ----------------------------------------------------------------------

const countable = fc.oneof(
  fields({
    messages,
    system: fc.oneof(maybe('be brief'), fc.array(fields({ type: maybe('text'), text: maybe('x') }), { maxLength: 2 })),
    tools,
  }),
  jsonish,
  hostile,
);

describe(`tokenizer front end (countRequestTokens) on arbitrary JSON (seed ${SEED})`, () => {
  function assertCount(body: unknown, what: string): void {
    for (const tokenizer of TOKENIZERS) {
      const count = countRequestTokens((body ?? {}) as CountableRequest, tokenizer);
      assert.ok(Number.isInteger(count) && count >= 0, `${what}: ${tokenizer} gave ${count}`);
    }
  }

  it('replays the corpus', () => {
    for (const entry of corpus<{ note: string; input: unknown }>('count-tokens.json'))
      assertCount(entry.input, entry.note);
  });

  it('any body gives a non-negative integer for every tokenizer, and never throws', () => {
    fc.assert(
      fc.property(countable, (body) =>
        assertCount(typeof body === 'object' ? body : { messages: [body] }, JSON.stringify(body)?.slice(0, 300) ?? ''),
      ),
      options,
    );
  });

  it('adding a message never lowers the count', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content: fc.string() }), {
          maxLength: 5,
        }),
        fc.string(),
        (list, extra) => {
          const before = countRequestTokens({ messages: list }, 'o200k_base');
          const after = countRequestTokens({ messages: [...list, { role: 'user', content: extra }] }, 'o200k_base');
          assert.ok(after > before);
        },
      ),
      options,
    );
  });
});

// ---- compressor -------------------------------------------------------------------------------

describe(`compressor (compressPayload) on arbitrary JSON (seed ${SEED})`, () => {
  function assertCompressOrInputError(body: unknown, what: string): void {
    let result: ReturnType<typeof compressPayload>;
    try {
      result = compressPayload(body);
    } catch (error) {
      assert.ok(
        error instanceof CompressionInputError,
        `${what}: threw ${(error as Error)?.constructor?.name}: ${(error as Error)?.stack}`,
      );
      assert.ok(error.message.length > 0);
      return;
    }
    assert.equal(typeof result.body, 'object', what);
    const { compression } = result;
    assert.ok(Number.isFinite(compression.compression_rate), `${what}: rate ${compression.compression_rate}`);
    assert.doesNotThrow(() => JSON.stringify(result.body), what);
  }

  it('replays the corpus', () => {
    for (const entry of corpus<{ note: string; input: unknown }>('compress.json'))
      assertCompressOrInputError(entry.input, entry.note);
  });

  it('any JSON body compresses or throws CompressionInputError, nothing else', () => {
    const body = fc.oneof(
      { weight: 3, arbitrary: compressBody },
      { weight: 1, arbitrary: jsonish },
      { weight: 1, arbitrary: hostile },
      {
        weight: 1,
        arbitrary: fields({
          messages,
          compression_model: fc.oneof(fc.constantFrom(...COMPRESSION_MODELS), weirdString, jsonish),
        }),
      },
    );
    fc.assert(
      fc.property(body, (value) =>
        assertCompressOrInputError(value, JSON.stringify(value)?.slice(0, 400) ?? String(value)),
      ),
      { ...options, numRuns: Math.ceil(RUNS / 2) },
    );
  });
});
