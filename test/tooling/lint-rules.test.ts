import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { ESLint } from 'eslint';

const repo = resolve(import.meta.dirname, '../..');

/** Lints `code` as if it were a file of src/, with the repository's own eslint.config.js. */
async function lintSource(code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: repo });
  // The path of a real file of the TypeScript project, so the type-aware rules have type
  // information; only its text in memory is replaced, the file on disk is not touched.
  const [result] = await eslint.lintText(code, { filePath: resolve(repo, 'src/canonical/completion.ts') });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('lint rules (npm run lint)', () => {
  it('refuses a floating promise', async () => {
    const rules = await lintSource(
      'async function save(): Promise<void> {}\nexport function handler(): void {\n  save();\n}\n',
    );
    assert.deepEqual(rules, ['@typescript-eslint/no-floating-promises']);
  });

  it('accepts the same call once it is awaited', async () => {
    const rules = await lintSource(
      'async function save(): Promise<void> {}\nexport async function handler(): Promise<void> {\n  await save();\n}\n',
    );
    assert.deepEqual(rules, []);
  });
});
