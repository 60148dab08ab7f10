import { isCompressionModel, type BundleName } from '../compress/index.js';
import { EDGEE_GENERIC_MODELS } from '../canonical/gateway-fields.js';

/** How the gateway reads its own and Edgee's compression members (src/canonical/gateway-fields.ts). */

/** What a request asks of compression: on or off (undefined: the key decides) and the bundle it names. */
export interface CompressionAsked {
  on: boolean | undefined;
  bundle: BundleName | undefined;
}

/** Reads the body's members (the gateway's and Edgee's) and the bundle the `X-Gateway-Compression-Model` header names (read only when the body names none). */
export function compressionAsked(
  body: Record<string, unknown>,
  headerBundle: () => BundleName | undefined,
): CompressionAsked {
  const model = body.compression_model;
  if (isCompressionModel(model)) return { on: true, bundle: model };
  if ((EDGEE_GENERIC_MODELS as readonly unknown[]).includes(model)) return { on: true, bundle: undefined };
  const fromHeader = headerBundle();
  if (fromHeader) return { on: true, bundle: fromHeader };
  if (body.enable_claude_compression === true) return { on: true, bundle: 'claude' };
  if (body.enable_opencode_compression === true) return { on: true, bundle: 'opencode' };
  if (typeof body.enable_compression === 'boolean') return { on: body.enable_compression, bundle: undefined };
  return { on: undefined, bundle: undefined };
}
