import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { GatewayTool } from '../types.js';

const Parameters = Type.Object(
  {
    count: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 20, description: 'How many UUIDs to generate (default 1, at most 20).' }),
    ),
  },
  { additionalProperties: false },
);

/** Random (version 4) UUIDs from the platform's CSPRNG. */
export const generateUuidTool: GatewayTool<Static<typeof Parameters>> = {
  id: 'gateway_generate_uuid',
  description: 'Generate random version 4 UUIDs.',
  parameters: Parameters,
  run: (args) => ({ uuids: Array.from({ length: args.count ?? 1 }, () => randomUUID()) }),
};
