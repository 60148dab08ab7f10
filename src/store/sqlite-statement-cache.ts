import type SQLite from 'better-sqlite3';

const MAX_CACHED_STATEMENTS = 256;

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running a small
 * statement, and it happens on every request's usage write. This wraps the connection so that
 * `prepare` returns a cached statement for SQL it has seen (least recently used dropped past
 * 256). A statement still being iterated (`busy`) is never handed out twice: a fresh one is
 * prepared instead.
 */
export function withStatementCache(database: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = database.prepare.bind(database);
  return new Proxy(database, {
    get(target, property, receiver) {
      if (property !== 'prepare') {
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value.bind(target) as unknown) : value;
      }
      return (source: string) => {
        const cached = cache.get(source);
        if (cached && !cached.busy) {
          cache.delete(source);
          cache.set(source, cached);
          return cached;
        }
        const statement = prepare(source);
        if (!cached) {
          cache.set(source, statement);
          if (cache.size > MAX_CACHED_STATEMENTS) cache.delete(cache.keys().next().value!);
        }
        return statement;
      };
    },
  });
}
