import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import SQLite from 'better-sqlite3';
import { startSqliteCheckpointer } from '../../src/store/sqlite-checkpointer.js';
import { openSqliteConnection, openStore } from '../../src/store/database.js';

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function walDatabase(): { database: SQLite.Database; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
  dirs.push(dir);
  const file = join(dir, 'db.sqlite');
  const database = openSqliteConnection(file);
  database.exec('create table rows (id integer primary key, body text not null)');
  return { database, file };
}

const autocheckpoint = (database: SQLite.Database) => database.pragma('wal_autocheckpoint', { simple: true }) as number;
const walPages = (database: SQLite.Database) =>
  (database.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SQLite checkpoints in a worker thread', () => {
  it('the committing connection stops checkpointing while the worker runs, and resumes when it is stopped', async () => {
    const { database, file } = walDatabase();
    assert.equal(autocheckpoint(database), 1000);
    const checkpointer = startSqliteCheckpointer(database, file, { intervalMs: 10 });
    assert.equal(autocheckpoint(database), 0);
    await checkpointer.stop();
    assert.equal(autocheckpoint(database), 1000);
    database.close();
  });

  it('under continuous writes the WAL is copied back and restarted, so the file stays bounded', async () => {
    const { database, file } = walDatabase();
    const checkpointer = startSqliteCheckpointer(database, file, { intervalMs: 5, restartPages: 200 });
    const insert = database.prepare('insert into rows (body) values (?)');
    const body = 'x'.repeat(3000); // about a page per row
    let largestWal = 0;
    // ~12,000 pages in small transactions with the event loop free between them, as the usage
    // writer commits: without restarts the WAL would pass 48 MB.
    for (let batch = 0; batch < 600; batch++) {
      database.transaction(() => {
        for (let i = 0; i < 20; i++) insert.run(body);
      })();
      largestWal = Math.max(largestWal, statSync(`${file}-wal`).size);
      await pause(1);
    }
    await checkpointer.stop();
    assert.equal((database.prepare('select count(*) as n from rows').get() as { n: number }).n, 12000);
    // Reused, not growing with what was written: 2–3 MB on a quiet machine; on a loaded one
    // (CI) the worker lags and the inline fallback past 4 × restartPages races it, and up to
    // ~14 MB was seen. Without restarts it would hold all 48 MB.
    assert.ok(largestWal < 24 * 1024 * 1024, `the WAL reached ${(largestWal / 1e6).toFixed(1)} MB`);
    database.close();
  });

  it('a reader holding old WAL frames never holds the writes up for long, is not reported as a failure, and hands the bound back to inline checkpoints', async () => {
    const { database, file } = walDatabase();
    const errors: string[] = [];
    const checkpointer = startSqliteCheckpointer(database, file, {
      intervalMs: 5,
      restartPages: 50,
      onError: (message) => errors.push(message),
    });
    const insert = database.prepare('insert into rows (body) values (?)');
    insert.run('first');
    // Another connection (another process, say) keeps a read transaction on an old snapshot.
    const reader = new SQLite(file);
    reader.exec('begin');
    reader.prepare('select count(*) from rows').get();
    let slowest = 0;
    for (let batch = 0; batch < 100; batch++) {
      const started = performance.now();
      database.transaction(() => {
        for (let i = 0; i < 5; i++) insert.run('z'.repeat(3000));
      })();
      slowest = Math.max(slowest, performance.now() - started);
      await pause(2);
    }
    // The WAL could not restart behind the reader and passed 4 × restartPages: the committing
    // connection checkpoints inline again (SQLite's own bound) instead of letting it grow.
    for (let waited = 0; autocheckpoint(database) !== 1000 && waited < 2_000; waited += 10) await pause(10);
    assert.equal(autocheckpoint(database), 1000);
    reader.exec('commit');
    reader.close();
    await checkpointer.stop();
    // One RESTART attempt holds the writer lock up to the worker's 100 ms busy timeout, then backs off.
    assert.ok(slowest < 500, `a commit waited ${slowest.toFixed(0)} ms`);
    assert.deepEqual(errors, []);
    database.close();
  });

  it('when the worker dies, the committing connection takes checkpoints up again', async () => {
    const { database, file } = walDatabase();
    const checkpointer = startSqliteCheckpointer(database, file, { intervalMs: 10 });
    assert.equal(autocheckpoint(database), 0);
    const exited = once(checkpointer.thread, 'exit');
    await checkpointer.thread.terminate();
    await exited;
    assert.equal(autocheckpoint(database), 1000);
    // Writes go on, and the WAL is checkpointed inline again.
    const insert = database.prepare('insert into rows (body) values (?)');
    for (let i = 0; i < 1500; i++) insert.run('y'.repeat(3000));
    assert.ok(walPages(database) < 1500);
    await checkpointer.stop();
    database.close();
  });

  it('a store opened with background checkpoints keeps its data across close and reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkpointer-store-'));
    dirs.push(dir);
    const store = await openStore({ dataDir: dir, backgroundCheckpoints: true });
    await store.db
      .insertInto('organizations')
      .values({ id: 'org-1', slug: 'acme', name: 'Acme', created_at: Date.now() } as never)
      .execute();
    await store.close();
    const reopened = await openStore({ dataDir: dir });
    const found = await reopened.db
      .selectFrom('organizations')
      .select('slug')
      .where('id', '=', 'org-1')
      .executeTakeFirst();
    assert.equal(found?.slug, 'acme');
    await reopened.close();
  });
});
