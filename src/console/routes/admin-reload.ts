import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { BroadcastReload } from '../../server/reload-broadcast.js';
import { requireAdmin } from '../auth/permissions.js';
import { ConsoleError } from '../console-error.js';

const Part = Type.Object({
  result: Type.Union([Type.Literal('reloaded'), Type.Literal('rejected')]),
  error: Type.Optional(Type.String()),
});

const ReloadSchema = Type.Object({
  object: Type.Literal('reload'),
  generation: Type.Integer({ description: 'The store-wide reload count this request set; every instance polls it.' }),
  config: Part,
  keyring: Type.Object({
    result: Type.Union([Type.Literal('reloaded'), Type.Literal('rejected')]),
    key_ids: Type.Array(Type.String(), { description: 'Ids of the accepted master keys, the sealing one first.' }),
  }),
  tls: Type.Object({
    result: Type.Union([Type.Literal('unchanged'), Type.Literal('swapped'), Type.Literal('rejected')]),
    fingerprint: Type.Optional(Type.String()),
    valid_to: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
  }),
});

/**
 * POST /v1/admin/reload: re-reads GATEWAY_CONFIG (catalogue, providers and their key files), the
 * master keys and the certificate on this instance, then on every instance of the store (they
 * poll its reload count). Admin tokens only. A config file or keyring that does not validate is
 * answered 422 with what is wrong, the previous one stays in use, and no other instance is asked.
 */
export function registerAdminReloadRoute(
  app: FastifyInstance,
  reload: (requestedBy: string) => Promise<BroadcastReload>,
): void {
  app.post(
    '/v1/admin/reload',
    {
      schema: {
        summary: 'Reload the configuration, provider keys, master keys and certificate on every instance',
        tags: ['admin'],
        response: { 200: ReloadSchema },
      },
    },
    async (request) => {
      requireAdmin(request, 'Reloading the gateway');
      const { generation, report } = await reload(`console token ${request.consoleToken.id}`);
      const refused = [
        report.config.result === 'rejected' ? `GATEWAY_CONFIG: ${report.config.error}` : undefined,
        report.keyring.result === 'rejected' ? `master keys: ${report.keyring.error}` : undefined,
      ].filter((problem) => problem !== undefined);
      if (generation === undefined)
        throw new ConsoleError(
          'reload_refused',
          `The reload was refused and asked of no other instance: ${refused.join('; ')}. What was in use stays in use.`,
        );
      const tls = report.tls;
      return {
        object: 'reload' as const,
        generation,
        config: report.config,
        keyring: { result: report.keyring.result, key_ids: report.keyring.keyIds ?? [] },
        tls: {
          result: tls.result,
          ...(tls.result === 'swapped' ? { fingerprint: tls.fingerprint, valid_to: tls.validTo } : {}),
          ...(tls.result === 'rejected' ? { error: tls.error } : {}),
        },
      };
    },
  );
}
