import type { MockWireFormat } from './types.js';

/**
 * What OpenAI's Chat Completions and Responses APIs share on the wire: paths under /v1, a bearer
 * key, OpenAI's 401 for a wrong one, its error envelope, and `"stream": true` for SSE.
 */
export const openaiHttp: Pick<MockWireFormat, 'basePath' | 'isStream' | 'apiKeyOf' | 'authError' | 'errorBody'> = {
  basePath: '/v1',
  isStream: (request) => request.body?.stream === true,
  apiKeyOf: (request) => /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1],
  authError: () => ({
    status: 401,
    body: {
      error: {
        message: 'Incorrect API key provided.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    },
  }),
  errorBody: (status, message) => ({
    error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null },
  }),
};
