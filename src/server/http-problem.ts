/** A request the HTTP kit refuses before any surface sees it; each surface renders it in its own error envelope. */
export interface HttpProblem {
  status: number;
  kind: 'invalid_json' | 'validation' | 'too_large' | 'unsupported_media_type' | 'not_found' | 'internal';
  message: string;
  param: string | null;
}
