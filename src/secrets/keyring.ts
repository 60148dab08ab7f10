import { createHash } from 'node:crypto';
import { decryptSecret, encryptSecret, parseSealed } from './secret-codec.js';

export interface MasterKey {
  /** 8 hex characters derived from the key (never the key itself): written into every v2 sealed value. */
  id: string;
  key: Buffer;
}

/** A key's id: a domain-separated digest, so the id reveals nothing usable about the key. */
export function masterKeyId(key: Buffer): string {
  return createHash('sha256').update('llm-gateway master key id\0').update(key).digest('hex').slice(0, 8);
}

/**
 * The master keys a process accepts, newest first: the first seals, every one opens. A rotation
 * adds the new key, re-seals every value with it (`gateway admin rotate-master-key`), then drops
 * the old one. `replace` swaps the whole ring at once (a reload), so a seal or open in progress
 * uses one consistent ring.
 */
export class Keyring {
  private keys: readonly MasterKey[];

  constructor(keys: readonly Buffer[]) {
    this.keys = Keyring.validated(keys);
  }

  private static validated(keys: readonly Buffer[]): MasterKey[] {
    if (keys.length === 0) throw new Error('a keyring needs at least one master key');
    const ring: MasterKey[] = [];
    for (const key of keys) {
      if (key.length !== 32) throw new Error('a master key is 32 bytes');
      const id = masterKeyId(key);
      if (!ring.some((known) => known.id === id)) ring.push({ id, key });
    }
    return ring;
  }

  replace(keys: readonly Buffer[]): void {
    this.keys = Keyring.validated(keys);
  }

  /** The key new values are sealed with. */
  get current(): MasterKey {
    return this.keys[0]!;
  }

  /** Ids of every accepted key, newest first. */
  ids(): string[] {
    return this.keys.map((key) => key.id);
  }

  /**
   * With one key the value is written in the format before key ids (`v1`), which a version from
   * before keyrings, running beside this one during a rolling upgrade, still opens; with several
   * (a rotation in progress, which every instance must support) it names its key (`v2`).
   */
  seal(plaintext: string, context: string): string {
    const { id, key } = this.current;
    return this.keys.length > 1 ? encryptSecret(key, plaintext, context, id) : encryptSecret(key, plaintext, context);
  }

  /**
   * A v2 value is opened by the key its id names; a v1 value (sealed before key ids) by whichever
   * accepted key authenticates it. A value sealed by a key no longer in the ring is an error that
   * names that key's id, so an operator knows which key was dropped too early.
   */
  open(sealed: string, context: string): string {
    const { keyId } = parseSealed(sealed);
    if (keyId !== undefined) {
      const key = this.keys.find((candidate) => candidate.id === keyId);
      if (!key)
        throw new Error(`sealed with master key ${keyId}, which is not in the keyring (${this.ids().join(', ')})`);
      return decryptSecret(key.key, sealed, context);
    }
    let failure: unknown;
    for (const { key } of this.keys) {
      try {
        return decryptSecret(key, sealed, context);
      } catch (error) {
        failure = error;
      }
    }
    throw new Error(`no master key in the keyring opens this value: ${(failure as Error).message}`);
  }

  /**
   * The id of the key of this ring that sealed `sealed`: named by a v2 value, found by trying
   * each key for a v1 one; undefined when no key of the ring opens it.
   */
  sealerOf(sealed: string, context: string): string | undefined {
    const { keyId } = parseSealed(sealed);
    if (keyId !== undefined) return this.keys.some((key) => key.id === keyId) ? keyId : undefined;
    for (const { id, key } of this.keys) {
      try {
        decryptSecret(key, sealed, context);
        return id;
      } catch {
        // not this key
      }
    }
    return undefined;
  }
}
