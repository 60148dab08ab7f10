// Migrations are expand-then-contract (docs/scale-out.md, "Upgrades without downtime"): the
// migrations newer than the previous release only add, unless they declare what they remove and
// the previous release no longer uses it; released migrations are never edited (a migrated store
// never runs them again).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../cli/cli-process.js';
import { contractSteps, declaredContracts } from '../support/expand-only.js';
import { fileAtRelease, filesAtRelease, previousRelease, releaseSourceMentions } from '../support/previous-release.js';

const MIGRATIONS = 'src/store/migrations';
const migrationFiles = readdirSync(join(REPO_ROOT, MIGRATIONS)).filter((name) => /^\d{3}-.+\.ts$/.test(name));
const release = previousRelease();
const skip = release.found ? false : release.why;

describe('migrations are expand-only between releases', () => {
  it('finds contract steps in up() only, past comments', () => {
    const migration = (up: string, down = '') =>
      `// drop table in a comment\nexport async function up(db) {\n${up}\n}\nexport async function down(db) {\n${down}\n}\n`;
    assert.deepEqual(contractSteps(migration('', "await db.schema.dropTable('t').execute();")), []);
    assert.deepEqual(contractSteps(migration("await db.schema.dropTable('t').execute();")), ['.dropTable(']);
    assert.deepEqual(contractSteps(migration("await db.schema.alterTable('t').renameColumn('a', 'b').execute();")), [
      '.renameColumn(',
    ]);
    assert.deepEqual(contractSteps(migration('await sql`ALTER TABLE t DROP COLUMN a`.execute(db);')), ['drop column']);
    assert.deepEqual(
      contractSteps(
        migration("await db.schema.alterTable('t').addColumn('n', 'integer', (c) => c.notNull()).execute();"),
      ),
      ['addColumn(… notNull() without defaultTo)'],
    );
    assert.deepEqual(
      contractSteps(
        migration(
          "await db.schema.alterTable('t').addColumn('n', 'integer', (c) => c.notNull().defaultTo(0)).execute();\n" +
            "await db.schema.createTable('u').addColumn('id', 'text', (c) => c.primaryKey().notNull()).execute();",
        ),
      ),
      [],
    );
    assert.deepEqual(declaredContracts('export const contracts = [\'api_keys.old_scope\', "old_table"];'), [
      'api_keys.old_scope',
      'old_table',
    ]);
  });

  it('finds the previous release in releases.json when tags were not fetched, at the tag’s commit', { skip }, () => {
    assert.ok(release.found);
    const recorded = previousRelease({ useTags: false });
    assert.ok(recorded.found, recorded.found ? '' : recorded.why);
    assert.equal(recorded.source, 'releases.json');
    if (release.source === 'git tag') assert.deepEqual([recorded.tag, recorded.commit], [release.tag, release.commit]);
  });

  it(`migrations newer than the previous release only expand, or contract what it no longer uses`, { skip }, () => {
    assert.ok(release.found);
    const released = new Set(filesAtRelease(release.commit, MIGRATIONS));
    const problems: string[] = [];
    for (const name of migrationFiles.filter((file) => !released.has(file))) {
      const source = readFileSync(join(REPO_ROOT, MIGRATIONS, name), 'utf8');
      const steps = contractSteps(source);
      if (steps.length === 0) continue;
      const contracts = declaredContracts(source);
      if (contracts.length === 0) {
        problems.push(`${name}: ${steps.join(', ')} without \`export const contracts = [...]\``);
        continue;
      }
      for (const contract of contracts) {
        for (const word of contract.split('.')) {
          const users = releaseSourceMentions(release.commit, word);
          if (users.length > 0) problems.push(`${name}: ${release.tag} still uses ${word} (${users.join(', ')})`);
        }
      }
    }
    assert.deepEqual(problems, [], `previous release ${release.tag} (${release.source})`);
  });

  it('migrations of the previous release are unchanged', { skip }, () => {
    assert.ok(release.found);
    const edited = filesAtRelease(release.commit, MIGRATIONS)
      .filter((name) => /^\d{3}-.+\.ts$/.test(name))
      .filter((name) => {
        const then = fileAtRelease(release.commit, `${MIGRATIONS}/${name}`)!;
        const now = migrationFiles.includes(name) ? readFileSync(join(REPO_ROOT, MIGRATIONS, name), 'utf8') : '';
        return then.replace(/\s+/g, ' ') !== now.replace(/\s+/g, ' ');
      });
    assert.deepEqual(edited, [], `edited or removed since ${release.tag}: a migrated store never runs them again`);
  });
});
