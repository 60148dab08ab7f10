import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Store } from '../../store/database.js';
import { usageExportPages } from '../../store/usage-export.js';
import { OrgParamsSchema } from '../schemas/api-key.js';
import { parseExportQuery } from '../export/export-query.js';
import { CSV_COLUMNS, csvRecord, jsonRecord } from '../export/export-format.js';
import { csvLines } from '../export/csv.js';

const stamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

/**
 * GET /v1/organizations/{orgId}/logs/export (spec 2.9, 4.2). The body streams straight from
 * the database: pages of 1,000 rows are fetched on demand as the socket drains (Readable.from
 * pulls the generator only when the response has room), so memory stays flat whatever the row
 * count. Rows leave as strings of ROWS_PER_CHUNK rows (`csvLines`, Papa Parse's `unparse`, per chunk): one
 * object-mode stream chunk per row made the export's garbage, and its peak memory, several
 * times larger. A database failure mid-way aborts the response.
 */
export function registerUsageExportRoute(app: FastifyInstance, store: Store): void {
  app.get<{ Params: Static<typeof OrgParamsSchema>; Querystring: Record<string, unknown> }>(
    '/v1/organizations/:orgId/logs/export',
    { schema: { params: OrgParamsSchema } },
    async (request, reply) => {
      const query = parseExportQuery(request.query, Date.now());
      const pages = usageExportPages(store, {
        organizationId: request.params.orgId,
        from: query.from,
        to: query.to,
        apiKeyIds: query.apiKeyIds,
        tags: query.tags,
        ...(query.memberId !== undefined ? { memberId: query.memberId } : {}),
      });
      const filename = `usage-${stamp(query.from)}-${stamp(query.to)}.${query.format}`;
      reply.header('content-disposition', `attachment; filename="${filename}"`).header('cache-control', 'no-store');

      if (query.format === 'json') {
        reply.type('application/json; charset=utf-8');
        return reply.send(Readable.from(jsonChunks(pages), { objectMode: false }));
      }
      reply.type('text/csv; charset=utf-8');
      return reply.send(Readable.from(csvChunks(pages), { objectMode: false }));
    },
  );
}

/** A chunk's string stays well under 128 KB, so V8 allocates it in the young generation. */
const ROWS_PER_CHUNK = 250;

async function* csvChunks(pages: AsyncGenerator<Parameters<typeof csvRecord>[0][]>): AsyncGenerator<string> {
  yield csvLines([[...CSV_COLUMNS]]);
  for await (const page of pages) {
    for (let start = 0; start < page.length; start += ROWS_PER_CHUNK) {
      yield csvLines(page.slice(start, start + ROWS_PER_CHUNK).map(csvRecord));
    }
  }
}

async function* jsonChunks(pages: AsyncGenerator<Parameters<typeof jsonRecord>[0][]>): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const page of pages) {
    for (let start = 0; start < page.length; start += ROWS_PER_CHUNK) {
      let chunk = '';
      for (const row of page.slice(start, start + ROWS_PER_CHUNK)) {
        chunk += (first ? '\n' : ',\n') + JSON.stringify(jsonRecord(row));
        first = false;
      }
      yield chunk;
    }
  }
  yield first ? ']' : '\n]\n';
}
