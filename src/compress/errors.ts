/**
 * Raised for a body the engine cannot convert. The route maps it to
 * 400 `invalid_request` with `param` copied into the error envelope (spec 7).
 */
export class CompressionInputError extends Error {
  readonly code = 'invalid_request' as const;
  readonly param: string | null;

  constructor(message: string, param: string | null = null) {
    super(message);
    this.name = 'CompressionInputError';
    this.param = param;
  }
}
