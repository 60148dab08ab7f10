import type { Logger } from 'pino';
import type { Keyring } from '../secrets/keyring.js';
import { loadMasterKeys, type MasterKeySource } from '../secrets/master-key.js';
import type { LiveConfig } from './live-config.js';
import type { TlsReloader, TlsReloadOutcome } from './tls-reloader.js';

export type PartOutcome = { result: 'reloaded' } | { result: 'rejected'; error: string };

/** What one reload did to each part; a rejected part kept what it had. */
export interface ReloadReport {
  trigger: string;
  /** GATEWAY_CONFIG: the catalogue, providers (their `api_key_file`s), timeouts and retries. */
  config: PartOutcome;
  /** The master keys (keyring file, data dir secret.key). */
  keyring: PartOutcome & { keyIds?: string[] };
  /** The certificate and key files. */
  tls: TlsReloadOutcome;
}

/**
 * One reload of everything a restart would re-read and that can change under a running process:
 * each part is loaded and validated on its own before it is swapped, so a bad config file keeps
 * the previous catalogue but still lets a new keyring or certificate in. Reloads run one at a time.
 */
export class Reloader {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly parts: {
      live: LiveConfig;
      keyring: Keyring;
      keySource: MasterKeySource;
      tls: TlsReloader;
      logger: Logger;
    },
  ) {}

  reload(trigger: string): Promise<ReloadReport> {
    const next = this.queue.then(() => this.reloadOnce(trigger));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async reloadOnce(trigger: string): Promise<ReloadReport> {
    const { live, keyring, keySource, tls, logger } = this.parts;
    const config = attempt(() => void live.reload());
    const keys = attempt(() => keyring.replace(loadMasterKeys(keySource)));
    const report: ReloadReport = {
      trigger,
      config,
      keyring: keys.result === 'reloaded' ? { ...keys, keyIds: keyring.ids() } : keys,
      tls: await tls.reload(),
    };
    if (config.result === 'rejected')
      logger.error(
        { trigger, error: config.error },
        'GATEWAY_CONFIG was not reloaded; the previous configuration stays in use',
      );
    if (keys.result === 'rejected')
      logger.error(
        { trigger, error: keys.error },
        'the master keys were not reloaded; the previous keyring stays in use',
      );
    logger.info(
      {
        trigger,
        config: config.result,
        keyring: report.keyring.result,
        keyIds: report.keyring.keyIds,
        tls: report.tls.result,
      },
      'reload finished',
    );
    return report;
  }
}

function attempt(work: () => void): PartOutcome {
  try {
    work();
    return { result: 'reloaded' };
  } catch (error) {
    return { result: 'rejected', error: (error as Error).message };
  }
}
