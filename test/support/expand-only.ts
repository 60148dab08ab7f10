/**
 * What makes a migration a contract step (docs/scale-out.md, "Upgrades without downtime"): a
 * change the previous version, still serving on the migrated schema, cannot live with. Read from
 * the `up` function's source (its `down` undoes and may drop), comments removed. Cheap and
 * conservative: it reads text, so a contract step built from variables slips through; review
 * still reads every migration.
 */
const BUILDER_STEPS =
  /\.(dropTable|dropColumn|renameColumn|renameTo|dropIndex|dropConstraint|dropView|dropSchema|dropType|modifyColumn|setDataType|setNotNull)\(/g;
const SQL_STEPS =
  /\b(drop\s+(table|column|index|constraint|view|schema|type)|rename\s+(column|to)|set\s+not\s+null|alter\s+column\s+\S+\s+(set\s+data\s+)?type)\b/gi;

/** The body of `export async function up(…)`, up to `down` or the end, without comments. */
export function upSource(source: string): string {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/[^\n]*/g, '$1');
  const start = code.search(/export\s+(async\s+)?function\s+up\s*\(/);
  if (start < 0) return '';
  const rest = code.slice(start);
  const down = rest.search(/export\s+(async\s+)?function\s+down\s*\(/);
  return down < 0 ? rest : rest.slice(0, down);
}

/** The contract steps in a migration's `up`, as found in its text. */
export function contractSteps(source: string): string[] {
  const up = upSource(source);
  const found = [...up.matchAll(BUILDER_STEPS)].map((m) => m[0]);
  found.push(...[...up.matchAll(SQL_STEPS)].map((m) => m[0].replace(/\s+/g, ' ').toLowerCase()));
  // A NOT NULL column added to an existing table without a default: the previous version's
  // inserts do not name it, and fail.
  for (const alter of up.match(/alterTable\([\s\S]*?\.execute\(\)/g) ?? []) {
    for (const added of alter.split('.addColumn(').slice(1)) {
      if (/notNull\(\)/.test(added) && !/defaultTo\(/.test(added))
        found.push('addColumn(… notNull() without defaultTo)');
    }
  }
  for (const added of up.match(/add\s+column[^;`]*/gi) ?? []) {
    if (/not\s+null/i.test(added) && !/default/i.test(added)) found.push('add column … not null without default');
  }
  return found;
}

/**
 * The tables and columns a contract migration removes or changes, declared by it as
 * `export const contracts = ['table', 'table.column']`: the check requires that the previous
 * release's code no longer names them (they were expanded away from one version earlier).
 */
export function declaredContracts(source: string): string[] {
  const list = /export\s+const\s+contracts\b[^=]*=\s*\[([^\]]*)\]/.exec(source)?.[1];
  return list ? [...list.matchAll(/['"]([^'"]+)['"]/g)].map((m) => m[1]!) : [];
}
