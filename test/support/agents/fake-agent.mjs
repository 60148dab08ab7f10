#!/usr/bin/env node
// A stand-in for an agent CLI that `gateway launch` starts: it writes what it was given (its
// arguments and the variables launch sets) as one JSON line to $FAKE_AGENT_REPORT, then exits
// with $FAKE_AGENT_EXIT, or with FAKE_AGENT_WAIT=1 waits until a signal ends it (recording the
// signal's name first, then dying of it).
import { appendFileSync } from 'node:fs';

const report = (entry) => appendFileSync(process.env.FAKE_AGENT_REPORT, JSON.stringify(entry) + '\n');
const NAMES = [
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_CUSTOM_HEADERS',
  'NODE_EXTRA_CA_CERTS',
  'CODEX_CA_CERTIFICATE',
  'GATEWAY_API_KEY',
  'OPENCODE_CONFIG_CONTENT',
];
report({ argv: process.argv.slice(2), env: Object.fromEntries(NAMES.map((name) => [name, process.env[name]])) });
if (process.env.FAKE_AGENT_WAIT === '1') {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
    process.once(signal, () => {
      report({ signal });
      process.kill(process.pid, signal);
    });
  setInterval(() => {}, 1000);
} else process.exit(Number(process.env.FAKE_AGENT_EXIT ?? 0));
