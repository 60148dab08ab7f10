import type { GatewayConfig, ModelConfig, ProviderConfig } from '../config/gateway-config.js';
import { ConfigError } from '../config/gateway-config.js';
import type { ProviderKind, UpstreamTarget } from '../providers/types.js';
import { isProviderKind } from '../providers/kinds.js';
import { DEFAULT_ALIASES, DEFAULT_MODELS, DEFAULT_PROVIDERS } from './default-catalogue.js';
import { resolveModelName, type NameResolution } from './resolve-name.js';
import { providerCeiling, unlistedModel, type Ceiling } from './unlisted-model.js';
import type { CatalogueModel } from './catalogue-model.js';

export const MODEL_ID_PATTERN = /^[a-zA-Z0-9_.-]+\/[a-zA-Z0-9_.:@-]+$/;

export type { CatalogueModel } from './catalogue-model.js';

/**
 * The built-in catalogue merged with the deployment's config: a config provider or model with
 * the id of a built-in one replaces it whole; new ids are added. Validated once at start-up.
 */
export class Catalogue {
  private readonly models = new Map<string, CatalogueModel>();
  /** Active models by id, and active ids by bare model name (for names sent without an author): see `sorted`. */
  private sortedActive: { activeList: CatalogueModel[]; byModelName: Map<string, string[]> } | undefined;
  private readonly providers = new Map<string, ProviderConfig>();
  private readonly ceilings = new Map<string, Ceiling | undefined>();
  /**
   * Each provider's key as this catalogue was built (start-up, or a reload: docs/configuration.md),
   * by provider id; absent when none is set. Read once: `process.env` is a C++ interceptor whose
   * every read copies the value, and routing read it three times per request (~1 % of a request's CPU).
   */
  private readonly keys = new Map<string, string>();

  constructor(
    config: GatewayConfig,
    env: NodeJS.ProcessEnv = process.env,
    /** Keys of providers with an `api_key_file`, read by the loader (catalogue-loader.ts), by provider id. */
    fileKeys: ReadonlyMap<string, string> = new Map(),
  ) {
    const providers = this.providers;
    for (const provider of [...DEFAULT_PROVIDERS, ...(config.providers ?? [])]) {
      // The config's schema does not name the kinds: the providers' registry does (src/providers/kinds.ts).
      if (!isProviderKind(provider.kind))
        throw new ConfigError(`provider ${provider.id} has kind "${provider.kind}", which no provider adapter has`);
      providers.set(provider.id, provider);
    }
    for (const provider of providers.values()) {
      const key = provider.api_key_file
        ? fileKeys.get(provider.id)
        : provider.api_key_env
          ? env[provider.api_key_env]
          : undefined;
      if (key !== undefined) this.keys.set(provider.id, key);
    }
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
  }

  /**
   * Active models sorted by id, and active ids by bare name in that order: built on first use,
   * because localeCompare loads ICU's collation data (~2.6 MB resident), which a process that
   * never lists models or resolves a bare name does not need.
   */
  private sorted(): { activeList: CatalogueModel[]; byModelName: Map<string, string[]> } {
    if (this.sortedActive) return this.sortedActive;
    const activeList = [...this.models.values()].filter((m) => m.active).sort((a, b) => a.id.localeCompare(b.id));
    const byModelName = new Map<string, string[]>();
    for (const model of activeList) {
      const bare = model.id.slice(model.id.indexOf('/') + 1).toLowerCase();
      byModelName.set(bare, [...(byModelName.get(bare) ?? []), model.id]);
    }
    return (this.sortedActive = { activeList, byModelName });
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
        authorsOf: (bare) => this.sorted().byModelName.get(bare) ?? [],
        aliases: DEFAULT_ALIASES,
      },
      defaultAuthor,
    );
  }

  /**
   * What a request naming `id` (`{author}/{model}`) calls: the catalogue model it resolves to,
   * else, for a well-formed name of a configured provider, that name forwarded as an unlisted
   * model priced at the provider's highest prices (see unlisted-model.ts); else undefined.
   */
  resolveForCall(id: string): CatalogueModel | undefined {
    const known = this.resolve(id);
    if (known || this.namesInactive(id)) return known;
    return unlistedModel(
      id,
      { providers: this.providers, apiKeyOf: (provider) => this.apiKeyOf(provider) },
      (providerId) => this.ceilingOf(providerId),
    );
  }

  /** Whether `id` names a model the deployment (or the built-in list) has deactivated: that stays a 404, never forwarded. */
  private namesInactive(id: string): boolean {
    const all = { has: (candidate: string) => this.models.has(candidate), authorsOf: () => [], aliases: {} };
    return resolveModelName(id, all) !== undefined;
  }

  private ceilingOf(providerId: string): Ceiling | undefined {
    if (!this.ceilings.has(providerId))
      this.ceilings.set(providerId, providerCeiling(providerId, this.sorted().activeList));
    return this.ceilings.get(providerId);
  }

  active(): readonly CatalogueModel[] {
    return this.sorted().activeList;
  }

  /**
   * Whether a provider can be called now: a local one always; a remote one when it needs no key
   * (no `api_key_env`, e.g. a vLLM on the private network) or its key variable was set when
   * this catalogue was built.
   */
  isConfigured(provider: ProviderConfig): boolean {
    if (provider.kind === 'local' || (!provider.api_key_env && !provider.api_key_file)) return true;
    const key = this.apiKeyOf(provider);
    return key !== undefined && key !== '';
  }

  /** A provider by id, built-in or the config file's: what an organization may hold its own key for. */
  provider(id: string): ProviderConfig | undefined {
    return this.providers.get(id);
  }

  /** Every provider id, sorted. */
  providerIds(): string[] {
    return [...this.providers.keys()].sort();
  }

  /** The provider's key: from its `api_key_file` as last (re)loaded, else its `api_key_env` variable. */
  apiKeyOf(provider: ProviderConfig): string | undefined {
    return this.keys.get(provider.id);
  }

  /** An active model with at least one configured provider: one a request can be routed to now. */
  isRoutable(model: CatalogueModel): boolean {
    return model.active && model.routes.some((route) => this.isConfigured(route.provider));
  }

  /** The models `GET /v1/models` lists: active and routable now, sorted by id. */
  routable(): CatalogueModel[] {
    return this.sorted().activeList.filter((model) => this.isRoutable(model));
  }

  /**
   * Upstream targets in priority order, configured providers only (a route whose key is not set
   * would only fail); empty when none is (provider_not_supported). `ownKeys` (an organization's own keys by provider id, BYOK) come before
   * the operator's: a provider the organization holds a key for is a target even when the operator
   * set none; a local provider takes no key.
   */
  targets(model: CatalogueModel, ownKeys?: ReadonlyMap<string, string>): UpstreamTarget[] {
    const targets: UpstreamTarget[] = [];
    for (const { provider, upstreamModel } of model.routes) {
      const ownKey = provider.kind === 'local' ? undefined : ownKeys?.get(provider.id);
      if (ownKey === undefined && !this.isConfigured(provider)) continue;
      // Members set one by one, and the URL's regex only when it ends with a slash: this runs per request.
      const baseUrl = provider.base_url ?? '';
      const target: UpstreamTarget = {
        providerId: provider.id,
        kind: provider.kind as ProviderKind, // checked when the catalogue was built
        baseUrl: baseUrl.endsWith('/') ? baseUrl.replace(/\/+$/, '') : baseUrl,
        apiKey: ownKey ?? this.apiKeyOf(provider),
        upstreamModel,
      };
      if (provider.headers) target.headers = provider.headers;
      if (provider.responses_api) target.responsesApi = true;
      targets.push(target);
    }
    return targets;
  }

  /**
   * Whether `target` answering means a fallback was used: it is not the model's first
   * configured route (the first failed or was unavailable, or a retry policy moved on).
   */
  isFallback(model: CatalogueModel, target: Pick<UpstreamTarget, 'providerId' | 'upstreamModel'>): boolean {
    const primary = model.routes.find((route) => this.isConfigured(route.provider));
    return (
      primary !== undefined &&
      (primary.provider.id !== target.providerId || primary.upstreamModel !== target.upstreamModel)
    );
  }
}
