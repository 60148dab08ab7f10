import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseLaunchArgs } from '../../src/cli/launch.js';
import { LAUNCH_AGENTS, launchPlan } from '../../src/cli/launch-plan.js';
import { clientProfile } from '../../src/cli/client-profiles.js';

/** How launch splits its own options from the agent's arguments, and what it runs for each agent. */
describe('gateway launch arguments', () => {
  it('ends its own options at the agent’s name and passes the rest as they are', () => {
    assert.deepEqual(
      parseLaunchArgs(['--org', 'acme', '--bin=/opt/claude', '--no-compression', 'claude', '--org', 'x', '-h']),
      {
        agent: 'claude',
        args: ['--org', 'x', '-h'],
        org: 'acme',
        url: undefined,
        compression: false,
        bin: '/opt/claude',
        member: undefined,
      },
    );
    const forMember = parseLaunchArgs(['--member', 'dev@example.org', 'codex', '--member', 'x']);
    assert.equal(forMember !== 'help' && forMember.member, 'dev@example.org');
    assert.deepEqual(
      forMember !== 'help' && forMember.args,
      ['--member', 'x'],
      "after the agent's name it is the agent's",
    );
    assert.equal(parseLaunchArgs(['--url', 'https://gw:8443', '-h', 'claude']), 'help');
    assert.throws(() => parseLaunchArgs(['--org', 'acme']), /launch takes an agent: claude, codex, opencode/);
    assert.throws(() => parseLaunchArgs(['--model', 'x', 'claude']), /Unknown option '--model'/);
  });

  it('finds the binary by --bin, then its variable, then its name on PATH', () => {
    const connection = {
      origin: 'https://gw:8443',
      apiKey: 'gw-k',
      caFile: undefined,
      caBundleFile: undefined,
      bundle: undefined,
    };
    const profile = clientProfile('claude-code', connection);
    const plan = (binary: string | undefined, baseEnv: NodeJS.ProcessEnv) =>
      launchPlan(LAUNCH_AGENTS.claude!, profile, { args: [], baseEnv, binary, connection }).command;
    assert.equal(plan('/opt/a', { GATEWAY_CLAUDE_BIN: '/opt/b' }), '/opt/a');
    assert.equal(plan(undefined, { GATEWAY_CLAUDE_BIN: '/opt/b' }), '/opt/b');
    assert.equal(plan(undefined, {}), 'claude');
  });
});
