import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readTrustedProxies, TrustedProxySettingsError } from '../../src/config/trusted-proxy-settings.js';
import { readSettings } from '../../src/config/settings.js';
import { trustedProxyMatcher } from '../../src/server/trusted-proxies.js';

const DOC = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

describe('GATEWAY_TRUSTED_PROXIES', () => {
  it('trusts nobody by default: no matcher, so no listener reads X-Forwarded-For', () => {
    assert.deepEqual(readSettings({}).trustedProxies, []);
    assert.equal(trustedProxyMatcher(readTrustedProxies({ GATEWAY_TRUSTED_PROXIES: ' , ' })), undefined);
    assert.match(DOC, /\| `GATEWAY_TRUSTED_PROXIES` \| none \|/);
  });

  it('matches IPv4 and IPv6 addresses and networks, IPv4-mapped peers included, and nothing else', () => {
    const trusted = trustedProxyMatcher(
      readTrustedProxies({ GATEWAY_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.10 ,2001:db8:1::/48,::1' }),
    )!;
    for (const address of ['10.1.2.3', '::ffff:10.200.0.1', '192.0.2.10', '2001:db8:1:ffff::7', '::1'])
      assert.equal(trusted(address), true, address);
    for (const address of ['11.0.0.1', '192.0.2.11', '2001:db8:2::1', '::2', 'unknown', '10.1.2.3:443', '', undefined])
      assert.equal(trusted(address), false, String(address));
  });

  it('refuses an entry that is not an address or a network, naming the variable and the entry', () => {
    for (const entry of ['10.0.0.0/33', '2001:db8::/129', 'proxy.internal', '10.0.0.1/8/8', '10.0.0.0/', '10.0.0.0/x'])
      assert.throws(
        () => readTrustedProxies({ GATEWAY_TRUSTED_PROXIES: `192.0.2.1,${entry}` }),
        (error: Error) =>
          error instanceof TrustedProxySettingsError &&
          error.message.startsWith('GATEWAY_TRUSTED_PROXIES') &&
          error.message.includes(`"${entry}"`),
        entry,
      );
  });
});
