import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { lineWriter } from '../../src/server/access-log.js';

function sinkLogger(options: pino.LoggerOptions = {}): { logger: pino.Logger; written: string[] } {
  const written: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      written.push(String(chunk));
      done();
    },
  });
  return {
    logger: pino({ level: 'debug', base: { pid: 7 }, timestamp: () => ',"time":1', ...options }, sink),
    written,
  };
}

const FIELDS = {
  reqId: 'req-1',
  method: 'POST',
  route: '/v1/chat/completions',
  status: 200,
  code: null,
  key: 'key_"quoted"\n',
  model: 'gpt-4o-mini \u2603',
  provider: 'openai',
  ms: 12,
  inputTokens: 10,
  outputTokens: null,
};

describe('access line writer', () => {
  it('writes the same line pino writes for the same fields, at every level', () => {
    for (const level of ['info', 'debug', 'warn'] as const) {
      const fast = sinkLogger();
      const slow = sinkLogger();
      const child = (l: pino.Logger) => l.child({ log: 'access', surface: 'gateway' }, { redact: [] });
      lineWriter(child(fast.logger))(level, FIELDS);
      child(slow.logger)[level](FIELDS, 'request');
      assert.equal(fast.written.join(''), slow.written.join(''));
      assert.deepEqual(JSON.parse(fast.written.join('')), {
        ...FIELDS,
        level: pino.levels.values[level],
        time: 1,
        pid: 7,
        log: 'access',
        surface: 'gateway',
        msg: 'request',
      });
    }
  });

  it('writes a number that is not finite as null, as pino does', () => {
    const fast = sinkLogger();
    lineWriter(fast.logger)('info', { ...FIELDS, ms: Number.NaN, inputTokens: Number.POSITIVE_INFINITY });
    const line = JSON.parse(fast.written.join('')) as { ms: unknown; inputTokens: unknown };
    assert.equal(line.ms, null);
    assert.equal(line.inputTokens, null);
  });

  it("keeps pino's own path for a logger whose formatters or mixin change the line", () => {
    const mixed = sinkLogger({ mixin: () => ({ extra: 1 }) });
    lineWriter(mixed.logger)('info', FIELDS);
    assert.equal((JSON.parse(mixed.written.join('')) as { extra?: number }).extra, 1);
    const formatted = sinkLogger({ formatters: { log: (o) => ({ ...o, formatted: true }) } });
    lineWriter(formatted.logger)('info', FIELDS);
    assert.equal((JSON.parse(formatted.written.join('')) as { formatted?: boolean }).formatted, true);
  });
});
