import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '../..');

/**
 * A scratch tree with one deliberate upward import, one deliberate cycle, two folders of one
 * floor importing each other (no module cycle: only the folders go both ways), and legal imports.
 */
const SCRATCH_FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
  'src/canonical/request.ts': 'export const request = 1;\n',
  'src/gateway/route.ts': 'export const route = 1;\n',
  // Legal: a provider imports the canonical floor below it.
  'src/providers/legal.ts': "import { request } from '../canonical/request.js';\nexport const legal = request;\n",
  // Upward: a provider reaches into the HTTP surface.
  'src/providers/upward.ts': "import { route } from '../gateway/route.js';\nexport const upward = route;\n",
  // A cycle inside one floor.
  'src/compress/a.ts': "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n",
  'src/compress/b.ts': "import { a } from './a.js';\nexport const b = (): number => a() - 1;\n",
  // Two folders of the adapters floor, each importing a different module of the other.
  'src/store/rows.ts': "import { price } from '../catalogue/price.js';\nexport const rows = price;\n",
  'src/store/names.ts': 'export const names = 1;\n',
  'src/catalogue/price.ts': 'export const price = 1;\n',
  'src/catalogue/models.ts': "import { names } from '../store/names.js';\nexport const models = names;\n",
  // Legal: one way only between two folders of one floor.
  'src/offload/pool.ts': "import { request } from '../canonical/request.js';\nexport const pool = request;\n",
  'src/providers/one-way.ts': "import { pool } from '../offload/pool.js';\nexport const oneWay = pool;\n",
};

function runLayers(cwd: string) {
  return spawnSync(
    process.execPath,
    [join(repo, 'scripts/check-layers.mjs'), '--config', join(repo, '.dependency-cruiser.cjs')],
    { cwd, encoding: 'utf8' },
  );
}

describe('layering check (npm run layers)', () => {
  let scratch: string;
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'layers-'));
    for (const [path, text] of Object.entries(SCRATCH_FILES)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    }
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('fails on an upward import and on an import cycle, and names both', () => {
    const run = runLayers(scratch);
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stderr, /no-upward-import-from-adapters: src\/providers\/upward\.ts → src\/gateway\/route\.ts/);
    assert.match(run.stderr, /no-circular: cycle src\/compress\/(a|b)\.ts → /);
    assert.doesNotMatch(run.stderr, /legal\.ts/);
  });

  it('fails on two folders of one floor importing each other, and names the imports both ways', () => {
    const run = runLayers(scratch);
    assert.equal(run.status, 1, run.stdout + run.stderr);
    const line = run.stderr.split('\n').find((l) => l.startsWith('no-two-way-folders:'));
    assert.ok(line, run.stderr);
    assert.match(line, /src\/catalogue ⇄ src\/store/);
    assert.match(line, /src\/store\/rows\.ts → src\/catalogue\/price\.ts/);
    assert.match(line, /src\/catalogue\/models\.ts → src\/store\/names\.ts/);
    // A one-way import between folders of one floor, and the cycle inside one folder, are not two-way folders.
    assert.doesNotMatch(run.stderr, /no-two-way-folders: .*(offload|providers|compress)/);
  });

  it('fails on a folder of src/ that has no floor', () => {
    writeFileSync(
      join(scratch, 'src/unplaced.ts'),
      "import { route } from './gateway/route.js';\nexport const x = route;\n",
    );
    const run = runLayers(scratch);
    assert.match(run.stderr, /no-unplaced-folder: src\/unplaced\.ts/);
  });
});
