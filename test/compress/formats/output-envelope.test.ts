// Codex's output envelopes: opened to the command's own output, sealed back byte for byte, and
// compressed inside (the envelope kept) on the way through the engine.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cachePricingFor } from '../../../src/catalogue/cache-pricing.js';
import { compressPayload } from '../../../src/compress/index.js';
import { openEnvelope, sealEnvelope } from '../../../src/compress/formats/output-envelope.js';
import { fixtureText } from '../helpers/fixtures.js';

type Obj = Record<string, any>;

const AGENTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'agents');
const PYTEST = fixtureText('pytest-verbose-failure.txt');

const SHELL = (output: string, seconds = '1.0') =>
  `{"output":${JSON.stringify(output)},"metadata":{"exit_code":1,"duration_seconds":${seconds}}}`;
const EXEC = (output: string) =>
  `Chunk ID: 3f2a1b\nWall time: 0.0512 seconds\nProcess exited with code 0\nOriginal token count: 812\nOutput:\n${output}`;

/** The recorded code-mode outputs of Codex 0.169 and 0.171, their parts joined as the engine reads them. */
const recordedOutputs = ['codex', 'codex-0.171.0'].map((dir) => {
  const body = JSON.parse(readFileSync(join(AGENTS, dir, '02-tool-result.json'), 'utf8')).body as Obj;
  const item = (body.input as Obj[]).find((i) => i.type === 'custom_tool_call_output')!;
  return (item.output as Obj[]).map((p) => p.text as string).join('\n');
});

describe('Codex output envelopes', () => {
  it("opens the shell tool's JSON object to its output and seals it back byte for byte (serde's 1.0 kept)", () => {
    const sent = SHELL('line one\n\ttabbed "quoted" \\ back\u001b[0m\n');
    const envelope = openEnvelope(sent)!;
    assert.equal(envelope.output, 'line one\n\ttabbed "quoted" \\ back\u001b[0m\n');
    assert.equal(sealEnvelope(envelope, envelope.output), sent);
    assert.equal(
      sealEnvelope(envelope, 'short'),
      '{"output":"short","metadata":{"exit_code":1,"duration_seconds":1.0}}',
    );
  });

  it("opens what follows exec_command's Output: and drops a finished run's chunk id, wall time and token count", () => {
    const sent = EXEC('     1\timport os\n     2\timport sys\n');
    const envelope = openEnvelope(sent)!;
    assert.equal(envelope.output, '     1\timport os\n     2\timport sys\n');
    assert.equal(envelope.receivedPrefix + envelope.output, sent);
    assert.equal(
      sealEnvelope(envelope, envelope.output),
      'Process exited with code 0\nOutput:\n     1\timport os\n     2\timport sys\n',
    );
    assert.equal(sealEnvelope(envelope, 'x'), 'Process exited with code 0\nOutput:\nx');
  });

  it('keeps the whole header of a process still running, the token count of an output Codex cut, and a short header as sent', () => {
    const running =
      'Chunk ID: 9a\nWall time: 10.0 seconds\nProcess running with session ID 7\nOriginal token count: 3\nOutput:\nwaiting\n';
    assert.equal(sealEnvelope(openEnvelope(running)!, 'waiting\n'), running);
    assert.equal(openEnvelope(running)!.receivedPrefix, undefined);
    const cut =
      'Chunk ID: 9b\nWall time: 1.0 seconds\nProcess exited with code 1\nOriginal token count: 90000\nOutput:\nhead\n…89000 tokens truncated…\ntail\n';
    assert.equal(
      sealEnvelope(openEnvelope(cut)!, 'head\n…89000 tokens truncated…\ntail\n'),
      'Process exited with code 1\nOriginal token count: 90000\nOutput:\nhead\n…89000 tokens truncated…\ntail\n',
    );
    const short = 'Exit code: 0\nOutput:\nok\n';
    assert.equal(sealEnvelope(openEnvelope(short)!, 'ok\n'), short);
    assert.equal(openEnvelope(short)!.receivedPrefix, undefined);
  });

  it('opens what Codex CLI 0.169 and 0.171 really sent (code-mode exec: header, then the result object)', () => {
    for (const sent of recordedOutputs) {
      const envelope = openEnvelope(sent)!;
      assert.equal(envelope.output, 'probe-content-7f3a9c\n');
      assert.equal(sealEnvelope(envelope, envelope.output), sent);
    }
  });

  it('leaves alone JSON that is a tool’s own data, plain output, and an Output: line of the command itself', () => {
    assert.equal(openEnvelope('{"output":"x","state":"OPEN","number":4,"title":"a pull request"}'), undefined);
    assert.equal(openEnvelope('{"output":["a","b"],"metadata":{"exit_code":0}}'), undefined);
    assert.equal(openEnvelope('total 12\ndrwxr-xr-x 2 root root 4096 .\n'), undefined);
    assert.equal(openEnvelope('Build finished\nOutput:\ndist/main.js\n'), undefined);
  });
});

describe('compression inside Codex envelopes', () => {
  const body = (outputs: { name: string; args: Obj; output: string }[]): Obj => ({
    model: 'gpt-5',
    input: [
      { role: 'user', content: 'Fix the failing test.' },
      ...outputs.flatMap(({ name, args, output }, i) => [
        { type: 'function_call', call_id: `c${i}`, name, arguments: JSON.stringify(args) },
        { type: 'function_call_output', call_id: `c${i}`, output },
      ]),
    ],
  });

  it("filters a test run's output inside the shell JSON object and keeps the object's other members", () => {
    const sent = SHELL(PYTEST, '2.3');
    const out = compressPayload(
      body([{ name: 'shell', args: { command: ['bash', '-lc', 'python -m pytest -v tests'] }, output: sent }]),
    ).body as Obj;
    const written = out.input[2].output as string;
    const parsed = JSON.parse(written) as { output: string; metadata: Obj };
    assert.deepEqual(parsed.metadata, { exit_code: 1, duration_seconds: 2.3 });
    assert.ok(parsed.output.length < PYTEST.length, 'the test output was filtered');
    assert.match(parsed.output, /FAILED|Error/);
    assert.ok(written.endsWith(',"metadata":{"exit_code":1,"duration_seconds":2.3}}'));
  });

  it("filters the output after exec_command's header and sends the header without the finished run's details", () => {
    const sent = EXEC(PYTEST);
    const out = compressPayload(body([{ name: 'exec_command', args: { cmd: 'pytest -v' }, output: sent }])).body as Obj;
    const written = out.input[2].output as string;
    assert.ok(written.length < sent.length);
    assert.ok(written.startsWith('Process exited with code 0\nOutput:\n'));
  });

  it('drops the details from an output it leaves as it is too, in every request, and counts them as removed', () => {
    const short = EXEC('ok\n');
    const request = body([{ name: 'exec_command', args: { cmd: 'true' }, output: short }]);
    const first = compressPayload(request);
    assert.equal((first.body as Obj).input[2].output, 'Process exited with code 0\nOutput:\nok\n');
    assert.ok(first.compression.compressed_input_tokens < first.compression.uncompressed_input_tokens);
    assert.deepEqual(first.compression.applied_strategies, ['tool_result_trimming']);
    const next = body([
      { name: 'exec_command', args: { cmd: 'true' }, output: short },
      { name: 'exec_command', args: { cmd: 'pytest -v' }, output: EXEC(PYTEST) },
    ]);
    assert.equal((compressPayload(next).body as Obj).input[2].output, 'Process exited with code 0\nOutput:\nok\n');
  });

  it("counts a finished run's dropped header lines as removed in the conversation's savings", () => {
    const pricing = cachePricingFor('openai', { input_per_mtok: 1, output_per_mtok: 4, cached_input_per_mtok: 0.1 });
    const request = body([{ name: 'exec_command', args: { cmd: 'true' }, output: EXEC('ok\n') }]);
    const outcome = compressPayload(request, { conversation: { pricing, state: undefined, now: 0 } }).conversation!;
    assert.ok(outcome.removed.fresh > 0, 'the header lines count as removed');
    assert.ok(outcome.state.savedUnits > 0);
  });

  it("masks an old output with its envelope and keeps a failed run's exit code in the placeholder", () => {
    const failed = (output: string) => EXEC(output).replace('code 0', 'code 2');
    const long = (tag: string) => Array.from({ length: 60 }, (_, i) => `${tag} line ${i} of the old run`).join('\n');
    const outputs = [
      { name: 'exec_command', args: { cmd: 'make build' }, output: failed(long('build')) },
      { name: 'exec_command', args: { cmd: 'make lint' }, output: EXEC(long('lint')) },
      ...Array.from({ length: 6 }, (_, i) => ({
        name: 'exec_command',
        args: { cmd: `echo ${i}` },
        output: EXEC(`${i}\n`),
      })),
    ];
    const out = compressPayload(body(outputs), { maskBefore: 2 }).body as Obj;
    assert.match(
      out.input[2].output as string,
      /^\[Earlier tool output removed to save context \(60 lines, [\d,]+ chars; exit code 2\)/,
    );
    assert.match(
      out.input[4].output as string,
      /^\[Earlier tool output removed to save context \(60 lines, [\d,]+ chars\);/,
    );
  });

  it('sends an envelope it did not change as it came, and compressing twice equals compressing once', () => {
    const short = SHELL('ok\n', '0.0');
    const first = compressPayload(
      body([
        { name: 'shell', args: { command: ['bash', '-lc', 'true'] }, output: short },
        { name: 'exec_command', args: { cmd: 'pytest -v' }, output: EXEC(PYTEST) },
      ]),
    ).body as Obj;
    assert.equal(first.input[2].output, short);
    const second = compressPayload(JSON.parse(JSON.stringify(first)) as Obj).body as Obj;
    assert.deepEqual(second, first);
  });
});
