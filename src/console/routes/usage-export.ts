import { Readable, pipeline } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { stringify } from 'csv-stringify';
import type { Store } from '../../store/database.js';
import { usageExportPages } from '../../store/usage-export.js';
import { assertOrganization } from '../auth/console-auth.js';
import { OrgParamsSchema } from '../schemas/api-key.js';
import { parseExportQuery } from '../export/export-query.js';
import { CSV_COLUMNS, csvRecord, jsonRecord } from '../export/export-format.js';

const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');

/**
 * GET /v1/organizations/{orgId}/logs/export (spec 2.9, 4.2). The body streams straight from
 * the database: pages of 1,000 rows are fetched on demand as the socket drains (Readable.from
 * pulls the generator only when the CSV stringifier or the response has room), so memory stays
 * flat whatever the row count. A database failure mid-way aborts the response.
 */
export function registerUsageExportRoute(app: FastifyInstance, store: Store): void {
  app.get<{ Params: Static<typeof OrgParamsSchema>; Querystring: Record<string, unknown> }>(
    '/v1/organizations/:orgId/logs/export',
    { schema: { params: OrgParamsSchema } },
    async (request, reply) => {
      assertOrganization(request, request.params.orgId);
      const query = parseExportQuery(request.query, Date.now());
      const pages = usageExportPages(store, {
        organizationId: request.params.orgId,
        from: query.from,
        to: query.to,
        apiKeyIds: query.apiKeyIds,
        tags: query.tags,
      });
      const filename = `usage-${stamp(query.from)}-${stamp(query.to)}.${query.format}`;
      reply.header('content-disposition', `attachment; filename="${filename}"`).header('cache-control', 'no-store');

      if (query.format === 'json') {
        reply.type('application/json; charset=utf-8');
        return reply.send(Readable.from(jsonChunks(pages), { objectMode: false }));
      }
      reply.type('text/csv; charset=utf-8');
      const stringifier = stringify({ bom: false, record_delimiter: 'unix' });
      const source = Readable.from(csvRecords(pages), { objectMode: true, highWaterMark: 256 });
      pipeline(source, stringifier, (error) => {
        if (error) request.log.warn({ err: error, reqId: request.id }, 'usage export stopped');
      });
      return reply.send(stringifier);
    },
  );
}

async function* csvRecords(pages: AsyncGenerator<Parameters<typeof csvRecord>[0][]>): AsyncGenerator<string[]> {
  yield [...CSV_COLUMNS];
  for await (const page of pages) for (const row of page) yield csvRecord(row);
}

/** One string per page keeps the per-row overhead of the stream machinery out of the loop. */
async function* jsonChunks(pages: AsyncGenerator<Parameters<typeof jsonRecord>[0][]>): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const page of pages) {
    let chunk = '';
    for (const row of page) {
      chunk += (first ? '\n' : ',\n') + JSON.stringify(jsonRecord(row));
      first = false;
    }
    yield chunk;
  }
  yield first ? ']' : '\n]\n';
}
