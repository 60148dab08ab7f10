import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dropSchema, storeKinds } from '../support/gateway-harness.js';
import { httpsClient, runCli, startServe } from '../cli/cli-process.js';

/**
 * Secrets at rest and in logs (issue 2 item 5): a real process, debug logging, keys created,
 * used (Bearer, Basic, wrong credentials, bad requests), revealed, updated and deleted; then the
 * database and every log line are searched for each secret in clear.
 */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The forms a leaked secret could take: whole, its random body, and that body's bytes as hex and base64. */
function leakForms(secret: string): string[] {
  const body = secret.slice(secret.indexOf(secret.startsWith('gwc_') ? '_' : '-') + 1);
  const raw = Buffer.from(body, 'base64url');
  return [secret, body, raw.toString('hex'), raw.toString('base64').replace(/=+$/, '')];
}

async function allTextInSchema(schema: string): Promise<string> {
  const client = new pg.Client({ connectionString: process.env.GATEWAY_TEST_DATABASE_URL });
  await client.connect();
  try {
    const columns = await client.query<{ table_name: string; column_name: string }>(
      `select table_name, column_name from information_schema.columns
        where table_schema = $1 and data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea')`,
      [schema],
    );
    assert.ok(columns.rows.length > 5, 'the schema has text columns');
    let all = '';
    for (const { table_name, column_name } of columns.rows) {
      const rows = await client.query(
        `select ${client.escapeIdentifier(column_name)}::text as v from ${client.escapeIdentifier(schema)}.${client.escapeIdentifier(table_name)}`,
      );
      for (const row of rows.rows) all += `${row.v}\n`;
    }
    return all;
  } finally {
    await client.end();
  }
}

for (const store of storeKinds()) {
  describe(`no key or token in clear at rest or in logs (${store})`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-secrets-'));
    const schema = `t_sec_${randomBytes(5).toString('hex')}`;
    const env: Record<string, string> = {
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_PORT: '0',
      CONSOLE_PORT: '0',
      COLLECTOR_PORT: '0',
      LOG_LEVEL: 'debug',
      ...(store === 'postgres'
        ? { DATABASE_URL: process.env.GATEWAY_TEST_DATABASE_URL!, DATABASE_SCHEMA: schema }
        : {}),
    };
    const secrets: string[] = [];
    let logs = '';

    before(async () => {
      const boot = await runCli('tsx', ['admin', 'bootstrap', '--org', 'secret-org'], env);
      assert.equal(boot.status, 0, boot.stderr);
      logs += boot.stderr;
      const { organization_id: orgId, console_token: token } = JSON.parse(boot.stdout);
      secrets.push(token);

      const serve = await startServe('tsx', env);
      const client = httpsClient(readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8'));
      try {
        const base = `${serve.urls.console}/v1/organizations/${orgId}/api_keys`;
        const keys: Array<{ id: string; key: string }> = [];
        for (const body of [
          { name: 'one' },
          { name: 'two', type: 'coding_agent', coding_assistant: 'claude_code' },
          { name: 'three', expires_in_days: 1 },
        ]) {
          const created = await client.call(base, 'POST', { token, body });
          assert.equal(created.status, 201, created.text);
          keys.push({ id: created.json.id, key: created.json.key });
          secrets.push(created.json.key);
        }
        for (const { id, key } of keys) {
          assert.equal((await client.call(`${serve.urls.gateway}/v1/models`, 'GET', { token: key })).status, 200);
          const basic = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
          assert.equal(
            (
              await client.call(`${serve.urls.gateway}/v1/models?provider=x`, 'GET', {
                headers: { authorization: basic },
              })
            ).status,
            200,
          );
          // Requests that fail after authentication, and ones that carry the key where it does not belong.
          await client.call(`${serve.urls.gateway}/v1/count_tokens`, 'POST', {
            token: key,
            body: { model: 'bad', messages: key },
          });
          await client.call(`${serve.urls.gateway}/v1/compress`, 'POST', {
            headers: { 'x-api-key': key },
            body: { messages: [{ role: 'user', content: 'hi' }] },
          });
          await client.call(`${serve.urls.gateway}/v1/models`, 'GET', { headers: { 'x-api-key': key } });
          await client.call(`${serve.urls.gateway}/v1/nope`, 'GET', { token: key });
          const chat = { model: 'local/echo', messages: [{ role: 'user', content: 'hello' }] };
          await client.call(`${serve.urls.gateway}/v1/chat/completions`, 'POST', { token: key, body: chat });
          await client.call(`${serve.urls.gateway}/v1/chat/completions`, 'POST', {
            token: key,
            body: { ...chat, stream: true, stream_options: { include_usage: true } },
          });
          await client.call(`${serve.urls.gateway}/v1/chat/completions`, 'POST', {
            token: key,
            body: { ...chat, model: 'nope/nope' },
          });
          await client.call(`${serve.urls.console}/v1/organizations/${orgId}/api_keys`, 'GET', { token: key });
          const revealed = await client.call(`${base}/${id}/reveal`, 'GET', { token });
          assert.equal(revealed.json.key, key);
        }
        await client.call(`${base}/${keys[0]!.id}`, 'POST', { token, body: { active: false } });
        assert.equal(
          (await client.call(`${serve.urls.gateway}/v1/models`, 'GET', { token: keys[0]!.key })).status,
          403,
        );
        await client.call(`${base}/${keys[1]!.id}`, 'DELETE', { token });
        assert.equal(
          (await client.call(`${serve.urls.gateway}/v1/models`, 'GET', { token: keys[1]!.key })).status,
          401,
        );
        await client.call(`${base}/${keys[2]!.id}`, 'POST', { token, body: { key: keys[2]!.key } });
        await client.call(base, 'POST', {
          token,
          rawBody: `{"name": "${keys[2]!.key}"`,
          headers: { 'content-type': 'application/json' },
        });
        await client.call(`${serve.urls.console}/v1/organizations/${orgId}/api_keys/${keys[2]!.id}`, 'GET', {
          token: `${token}x`,
        });
      } finally {
        await client.close();
        const stopped = await serve.stop();
        assert.equal(stopped.code, 0, serve.stderr());
        logs += serve.stdout() + serve.stderr();
      }
    });
    after(async () => {
      rmSync(dataDir, { recursive: true, force: true });
      if (store === 'postgres') await dropSchema(schema);
    });

    it('the run wrote log lines (so the log check below means something)', () => {
      assert.ok(logs.split('\n').filter(Boolean).length >= 3, logs);
      assert.match(logs, /"level":20|"level":30/);
    });

    it('the logs contain no key and no console token in clear', () => {
      assert.equal(secrets.length, 4);
      for (const secret of secrets) {
        for (const form of leakForms(secret))
          assert.ok(!logs.includes(form), `a secret (${secret.slice(0, 6)}…) appears in the logs`);
      }
    });

    if (store === 'sqlite') {
      it('no file of the data dir (database, WAL, shared memory) contains a key or token in clear', () => {
        const files = filesUnder(dataDir).filter(
          (f) => !f.endsWith('secret.key') && !f.includes(`${join(dataDir, 'tls')}`),
        );
        assert.ok(
          files.some((f) => f.endsWith('gateway.sqlite')),
          files.join(', '),
        );
        for (const file of files) {
          const bytes = readFileSync(file);
          const asText = bytes.toString('latin1');
          for (const secret of secrets) {
            for (const form of leakForms(secret))
              assert.ok(!asText.includes(form), `${file} holds a secret (${secret.slice(0, 6)}…) in clear`);
          }
        }
      });
    } else {
      it('no text column of any table in the schema contains a key or token in clear', async () => {
        const all = await allTextInSchema(schema);
        assert.match(all, /v1\./, 'the sealed ciphertexts were read');
        for (const secret of secrets) {
          for (const form of leakForms(secret))
            assert.ok(!all.includes(form), `the database holds a secret (${secret.slice(0, 6)}…) in clear`);
        }
      });
    }
  });
}
