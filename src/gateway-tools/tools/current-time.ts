import { Type, type Static } from '@sinclair/typebox';
import { ToolFailure, type GatewayTool } from '../types.js';

const Parameters = Type.Object(
  {
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'IANA time zone, e.g. "Europe/Paris" or "America/New_York". Default "UTC".',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The current date and time, in UTC and in the requested IANA time zone. */
export const currentTimeTool: GatewayTool<Static<typeof Parameters>> = {
  id: 'gateway_current_time',
  description: 'Get the current date and time, optionally in a given IANA time zone (default UTC).',
  parameters: Parameters,
  run: (args, context) => {
    const timezone = args.timezone ?? 'UTC';
    const now = context.now();
    let format: Intl.DateTimeFormat;
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: timezone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        weekday: 'long',
        timeZoneName: 'longOffset',
      });
    } catch {
      throw new ToolFailure(`Unknown time zone "${timezone}"; use an IANA name such as "Europe/Paris".`);
    }
    const parts = Object.fromEntries(format.formatToParts(new Date(now)).map((part) => [part.type, part.value]));
    // "GMT+02:00", or plain "GMT" for a zero offset.
    const offset = (parts.timeZoneName ?? 'GMT').replace(/^GMT/, '') || '+00:00';
    return {
      timezone: format.resolvedOptions().timeZone,
      local: `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`,
      utc: new Date(now).toISOString(),
      utc_offset: offset,
      weekday: parts.weekday,
      unix: Math.floor(now / 1000),
    };
  },
};
