import type { GatewayConfig } from '../config/gateway-config.js';
import type { Catalogue } from '../catalogue/catalogue.js';
import { loadCatalogue } from '../catalogue/catalogue-loader.js';
import { DEFAULT_RETRY } from '../providers/index.js';

/** What a GATEWAY_CONFIG file decides, as one value swapped whole by a reload. */
export interface ConfigSnapshot {
  config: GatewayConfig;
  catalogue: Catalogue;
  upstream: ReturnType<typeof upstreamPolicy>;
}

/**
 * The configuration in use. Services read `current` when a request starts (admission resolves
 * the model and its targets, keys included, from it), so a reload changes what new requests get
 * while requests in flight finish on the snapshot they started with.
 */
export class LiveConfig {
  current: ConfigSnapshot;

  constructor(
    private readonly configFile: string | undefined,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.current = this.load();
  }

  /** Reads and validates the file (and providers' key files); throws a ConfigError without swapping anything. */
  load(): ConfigSnapshot {
    const { config, catalogue } = loadCatalogue(this.configFile, this.env);
    return { config, catalogue, upstream: upstreamPolicy(config) };
  }

  /** Loads, validates, then swaps; a bad file throws and the previous snapshot stays. */
  reload(): ConfigSnapshot {
    return (this.current = this.load());
  }
}

/**
 * Defaults suit LLM calls: a non-streamed completion sends its headers only when the whole
 * answer is ready, so the first-byte limit is generous; a stream that goes quiet for two
 * minutes is treated as dead.
 */
export function upstreamPolicy(config: GatewayConfig) {
  return {
    timeouts: {
      connectMs: config.timeouts?.connect_ms ?? 10_000,
      firstByteMs: config.timeouts?.first_byte_ms ?? 600_000,
      betweenChunksMs: config.timeouts?.between_chunks_ms ?? 120_000,
    },
    retry: {
      maxAttempts: config.retry?.max_attempts ?? DEFAULT_RETRY.maxAttempts,
      baseDelayMs: config.retry?.base_delay_ms ?? DEFAULT_RETRY.baseDelayMs,
      maxDelayMs: config.retry?.max_delay_ms ?? DEFAULT_RETRY.maxDelayMs,
    },
  };
}
