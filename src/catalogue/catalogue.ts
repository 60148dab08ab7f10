import type { GatewayConfig, ModelConfig, Pricing, ProviderConfig } from '../config/gateway-config.js';
import { ConfigError } from '../config/gateway-config.js';
import type { UpstreamTarget } from '../providers/types.js';
import { DEFAULT_ALIASES, DEFAULT_MODELS, DEFAULT_PROVIDERS } from './default-catalogue.js';
import { resolveModelName, type NameResolution } from './resolve-name.js';

export const MODEL_ID_PATTERN = /^[a-zA-Z0-9_.-]+\/[a-zA-Z0-9_.:@-]+$/;

export interface CatalogueModel {
  id: string;
  author: string;
  active: boolean;
  created: number;
  ownedBy: string;
  pricing: Pricing;
  maxOutputTokens: number;
  /** Prompt tokens the model accepts, when configured (else the provider default, cache-pricing.ts). */
  contextWindow: number | undefined;
  routes: Array<{ provider: ProviderConfig; upstreamModel: string }>;
}

/**
 * The built-in catalogue merged with the deployment's config: a config provider or model with
 * the id of a built-in one replaces it whole; new ids are added. Validated once at start-up.
 */
export class Catalogue {
  private readonly models = new Map<string, CatalogueModel>();
  private readonly activeList: CatalogueModel[];
  /** Active ids by bare model name, for names sent without an author. */
  private readonly byModelName = new Map<string, string[]>();

  constructor(
    config: GatewayConfig,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    const providers = new Map<string, ProviderConfig>();
    for (const provider of [...DEFAULT_PROVIDERS, ...(config.providers ?? [])]) providers.set(provider.id, provider);
    const models = new Map<string, ModelConfig>();
    for (const model of [...DEFAULT_MODELS, ...(config.models ?? [])]) models.set(model.id, model);

    for (const [id, model] of models) {
      const routes = model.providers.map(({ provider, model: upstreamModel }) => {
        const found = providers.get(provider);
        if (!found) throw new ConfigError(`model ${id} names provider "${provider}", which is not configured`);
        if (found.kind !== 'local' && !found.base_url) throw new ConfigError(`provider ${found.id} needs a base_url`);
        return { provider: found, upstreamModel };
      });
      const author = id.slice(0, id.indexOf('/'));
      this.models.set(id, {
        id,
        author,
        active: model.active ?? true,
        created: model.created ?? 0,
        ownedBy: model.owned_by ?? author,
        pricing: model.pricing,
        maxOutputTokens: model.max_output_tokens ?? 4096,
        contextWindow: model.context_window,
        routes,
      });
    }
    this.activeList = [...this.models.values()].filter((m) => m.active).sort((a, b) => a.id.localeCompare(b.id));
    for (const model of this.activeList) {
      const bare = model.id.slice(model.id.indexOf('/') + 1).toLowerCase();
      this.byModelName.set(bare, [...(this.byModelName.get(bare) ?? []), model.id]);
    }
  }

  /** Active models only; an inactive model behaves as unknown. */
  find(id: string): CatalogueModel | undefined {
    const model = this.models.get(id);
    return model?.active ? model : undefined;
  }

  /**
   * A model name as a client sends it (`claude-haiku-4-5-20251001`, `sonnet`,
   * `anthropic/claude-opus-4.5`, `us.anthropic.claude-opus-4-5-20251101-v1:0`) → an active
   * model; `defaultAuthor` is tried for a bare name first (see resolve-name.ts).
   */
  resolve(name: string, defaultAuthor?: string): CatalogueModel | undefined {
    const found = this.resolveName(name, defaultAuthor);
    return found ? this.find(found.id) : undefined;
  }

  /** What `resolve` matched and how, for callers that record or explain it. */
  resolveName(name: string, defaultAuthor?: string): NameResolution | undefined {
    return resolveModelName(
      name,
      {
        has: (id) => this.find(id) !== undefined,
        authorsOf: (bare) => this.byModelName.get(bare) ?? [],
        aliases: DEFAULT_ALIASES,
      },
      defaultAuthor,
    );
  }

  active(): readonly CatalogueModel[] {
    return this.activeList;
  }

  /** Upstream targets in priority order; credentials are read from the environment per call. */
  targets(model: CatalogueModel): UpstreamTarget[] {
    return model.routes.map(({ provider, upstreamModel }) => ({
      providerId: provider.id,
      kind: provider.kind,
      baseUrl: (provider.base_url ?? '').replace(/\/+$/, ''),
      apiKey: provider.api_key_env ? this.env[provider.api_key_env] : undefined,
      upstreamModel,
      ...(provider.headers ? { headers: provider.headers } : {}),
    }));
  }
}
