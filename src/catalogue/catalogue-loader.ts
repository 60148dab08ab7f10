import { readFileSync } from 'node:fs';
import { ConfigError, loadGatewayConfig, type GatewayConfig } from '../config/gateway-config.js';
import { DEFAULT_PROVIDERS } from './default-catalogue.js';
import { Catalogue } from './catalogue.js';

export interface LoadedCatalogue {
  config: GatewayConfig;
  catalogue: Catalogue;
}

/**
 * The GATEWAY_CONFIG file read, validated and merged with the built-in catalogue, providers'
 * `api_key_file`s read: everything a start or a reload needs, or a ConfigError naming what is
 * wrong. Nothing is swapped here, so a bad file leaves the running configuration untouched.
 */
export function loadCatalogue(configFile: string | undefined, env: NodeJS.ProcessEnv): LoadedCatalogue {
  const config = loadGatewayConfig(configFile);
  const fileKeys = new Map<string, string>();
  for (const provider of [...DEFAULT_PROVIDERS, ...(config.providers ?? [])]) {
    if (!provider.api_key_file) continue;
    let key: string;
    try {
      key = readFileSync(provider.api_key_file, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(
        `provider ${provider.id}: cannot read api_key_file ${provider.api_key_file}: ${(error as Error).message}`,
      );
    }
    if (key === '' || /\s/.test(key))
      throw new ConfigError(
        `provider ${provider.id}: api_key_file ${provider.api_key_file} must hold one key on one line`,
      );
    fileKeys.set(provider.id, key);
  }
  return { config, catalogue: new Catalogue(config, env, fileKeys) };
}
