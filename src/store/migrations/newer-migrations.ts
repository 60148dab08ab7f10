import type { Migration, MigrationProvider } from 'kysely';

/**
 * Migrations a newer build already ran on a shared store, stood in for by placeholders, so this
 * build starts on it (docs/scale-out.md, "Upgrades without downtime"): during a rolling upgrade
 * version N+1 migrates the database while N still serves, and an N instance that restarts must not
 * refuse the schema. Kysely's migrator refuses a store holding an executed migration it was not
 * given ("corrupted migrations: previously executed migration … is missing"). Migrations are
 * expand-only within a release, so N can serve on a schema N+1 expanded; a placeholder is never
 * run (its name is already executed), and says so if it ever were.
 */
export function toleratingNewerMigrations(
  known: Record<string, Migration>,
  executed: readonly string[],
): { provider: MigrationProvider; newer: string[] } {
  const newer = executed.filter((name) => !Object.hasOwn(known, name));
  const placeholders = Object.fromEntries(
    newer.map((name): [string, Migration] => [
      name,
      {
        up: () => Promise.reject(new Error(`migration ${name} belongs to a newer gateway build`)),
      },
    ]),
  );
  const all = { ...known, ...placeholders };
  return { provider: { getMigrations: () => Promise.resolve(all) }, newer };
}
