import { createRequire } from 'node:module';
import type PapaParse from 'papaparse';

/** Loaded with the first export: a console that never exports a CSV does not hold the parser. */
let papa: typeof PapaParse | undefined;
const Papa = () => (papa ??= createRequire(import.meta.url)('papaparse') as typeof PapaParse);

/**
 * A cell a spreadsheet would read as a formula: it starts with `=`, `+`, `-` or `@`, or with a
 * tab or carriage return (OWASP, "CSV Injection"). Papa Parse's own `escapeFormulae: true`
 * pattern is `/^[=+\-@\t\r].*$/`, whose `.*$` fails on a cell with a line break after the
 * formula, so that cell would leave unescaped; only the first character matters here.
 */
export const FORMULA_LEADING = /^[=+\-@\t\r]/;

const CSV_OPTIONS = { newline: '\n', header: false, escapeFormulae: FORMULA_LEADING } as const;

/**
 * RFC 4180 rows, each ending in a newline: a field with a quote, comma or line break is quoted,
 * and a formula-leading cell is prefixed with `'` (and quoted), which spreadsheets show as text.
 * Every CSV the console serves goes through here.
 */
export function csvLines(records: string[][]): string {
  return `${Papa().unparse(records, CSV_OPTIONS)}\n`;
}

/** A cell as it was before `csvLines` escaped it: what a reader that knows the convention gets back. */
export function unescapeFormulaCell(cell: string): string {
  return cell.startsWith("'") && FORMULA_LEADING.test(cell.slice(1)) ? cell.slice(1) : cell;
}
