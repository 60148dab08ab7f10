import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { currentTimeTool } from '../../src/gateway-tools/tools/current-time.js';
import { generateUuidTool } from '../../src/gateway-tools/tools/generate-uuid.js';
import { GatewayToolRegistry, gatewayToolRegistry, toFunctionTool } from '../../src/gateway-tools/registry.js';
import { runGatewayTool } from '../../src/gateway-tools/run-tool.js';
import { ToolFailure, type GatewayTool } from '../../src/gateway-tools/types.js';

const FIXED = Date.UTC(2025, 0, 15, 10, 30, 45); // Wednesday 2025-01-15 10:30:45 UTC
const now = () => FIXED;

describe('gateway_current_time', () => {
  it('defaults to UTC', async () => {
    const outcome = await runGatewayTool(currentTimeTool, '{}', { now });
    assert.equal(outcome.success, true);
    assert.deepEqual(JSON.parse(outcome.content), {
      timezone: 'UTC',
      local: '2025-01-15T10:30:45+00:00',
      utc: '2025-01-15T10:30:45.000Z',
      utc_offset: '+00:00',
      weekday: 'Wednesday',
      unix: FIXED / 1000,
    });
  });

  it('answers in an IANA time zone with its offset', async () => {
    const paris = JSON.parse((await runGatewayTool(currentTimeTool, '{"timezone":"Europe/Paris"}', { now })).content);
    assert.equal(paris.local, '2025-01-15T11:30:45+01:00');
    assert.equal(paris.timezone, 'Europe/Paris');
    const kolkata = JSON.parse((await runGatewayTool(currentTimeTool, '{"timezone":"Asia/Kolkata"}', { now })).content);
    assert.equal(kolkata.local, '2025-01-15T16:00:45+05:30');
    const ny = JSON.parse((await runGatewayTool(currentTimeTool, '{"timezone":"America/New_York"}', { now })).content);
    assert.equal(ny.utc_offset, '-05:00');
  });

  it('an unknown time zone is a tool failure the model can read', async () => {
    const outcome = await runGatewayTool(currentTimeTool, '{"timezone":"Mars/Olympus_Mons"}', { now });
    assert.equal(outcome.success, false);
    assert.match(JSON.parse(outcome.content).error, /Unknown time zone "Mars\/Olympus_Mons"/);
  });

  it('wrong argument types and unknown members are refused before the handler runs', async () => {
    assert.equal((await runGatewayTool(currentTimeTool, '{"timezone":5}')).success, false);
    assert.equal((await runGatewayTool(currentTimeTool, '{"tz":"UTC"}')).success, false);
    const notJson = await runGatewayTool(currentTimeTool, '{"timezone":');
    assert.equal(notJson.success, false);
    assert.equal(notJson.error, 'The arguments are not valid JSON.');
    // An empty argument string (some providers send it for no arguments) means {}.
    assert.equal((await runGatewayTool(currentTimeTool, '')).success, true);
  });
});

describe('gateway_generate_uuid', () => {
  const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  it('returns one v4 UUID by default, and count of them on request', async () => {
    const one = JSON.parse((await runGatewayTool(generateUuidTool, '{}')).content);
    assert.equal(one.uuids.length, 1);
    assert.match(one.uuids[0], V4);
    const five = JSON.parse((await runGatewayTool(generateUuidTool, '{"count":5}')).content);
    assert.equal(new Set(five.uuids).size, 5);
    for (const uuid of five.uuids) assert.match(uuid, V4);
  });
  it('refuses a count outside 1..20', async () => {
    assert.equal((await runGatewayTool(generateUuidTool, '{"count":0}')).success, false);
    assert.equal((await runGatewayTool(generateUuidTool, '{"count":21}')).success, false);
    assert.equal((await runGatewayTool(generateUuidTool, '{"count":1.5}')).success, false);
  });
});

describe('tool runner', () => {
  const slow: GatewayTool = {
    id: 'gateway_test_slow',
    description: 'never finishes in time',
    parameters: Type.Object({}),
    timeoutMs: 50,
    run: (_args, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('late'))),
  };

  it('a handler past its time limit fails, and its signal is aborted', async () => {
    let aborted = false;
    const tool: GatewayTool = {
      ...slow,
      run: (_a, { signal }) => new Promise(() => signal.addEventListener('abort', () => (aborted = true))),
    };
    const started = performance.now();
    const outcome = await runGatewayTool(tool, '{}');
    assert.ok(performance.now() - started < 1_000);
    assert.equal(outcome.success, false);
    assert.equal(outcome.error, 'The tool did not finish within 50 ms.');
    assert.ok(aborted);
  });

  it('a ToolFailure message reaches the model, any other error is reported without its internals', async () => {
    const failing: GatewayTool = {
      ...slow,
      run: () => {
        throw new ToolFailure('no such city');
      },
    };
    assert.deepEqual(JSON.parse((await runGatewayTool(failing, '{}')).content), { error: 'no such city' });
    const crashing: GatewayTool = {
      ...slow,
      run: async () => {
        throw new Error('ECONNREFUSED 10.0.0.7:5432');
      },
    };
    const outcome = await runGatewayTool(crashing, '{}');
    assert.equal(outcome.success, false);
    assert.doesNotMatch(outcome.content, /10\.0\.0\.7/);
  });

  it('the client going away cancels a running tool', async () => {
    const controller = new AbortController();
    const running = runGatewayTool({ ...slow, timeoutMs: 10_000 }, '{}', { signal: controller.signal });
    controller.abort();
    const outcome = await running;
    assert.equal(outcome.success, false);
    assert.match(outcome.error!, /cancelled/);
  });
});

describe('registry', () => {
  it('holds the three built-in tools, each with a description and an object schema', () => {
    const ids = gatewayToolRegistry
      .list()
      .map((t) => t.id)
      .sort();
    for (const id of ['gateway_calculator', 'gateway_current_time', 'gateway_generate_uuid'])
      assert.ok(ids.includes(id), id);
    for (const tool of gatewayToolRegistry.list()) {
      assert.match(tool.id, /^gateway_/);
      assert.ok(tool.description.length > 10);
      const fn = toFunctionTool(tool);
      assert.equal(fn.type, 'function');
      assert.equal(fn.function.name, tool.id);
      assert.equal(fn.function.parameters!.type, 'object');
      // Plain JSON: no TypeBox symbols reach a provider.
      assert.deepEqual(Object.getOwnPropertySymbols(fn.function.parameters!), []);
    }
  });

  it('refuses duplicate ids and ids outside the gateway_ namespace', () => {
    const registry = new GatewayToolRegistry([currentTimeTool]);
    assert.throws(() => registry.register(currentTimeTool), /twice/);
    assert.throws(() => registry.register({ ...currentTimeTool, id: 'current_time' }), /must match/);
    registry.register({ ...currentTimeTool, id: 'gateway_other' });
    assert.ok(registry.has('gateway_other'));
    registry.unregister('gateway_other');
    assert.equal(registry.get('gateway_other'), undefined);
  });
});
