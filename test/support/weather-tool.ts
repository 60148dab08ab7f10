/** The one client tool the endpoint tests declare, in the shape of each API. */

/** Anthropic Messages (`tools[]` of /v1/messages). */
export const MESSAGES_WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};
