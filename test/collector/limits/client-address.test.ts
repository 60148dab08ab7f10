import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { addressKey } from '../../../src/collector/limits/client-address.js';

describe('rate-limit key of a client address', () => {
  it('an IPv4 address is its own key, also written as IPv4-mapped IPv6', () => {
    assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
  });

  it('every address of one IPv6 /64 shares a key, so rotating through it does not reset the budget', () => {
    const key = addressKey('2001:db8:1:2::1');
    assert.equal(key, '2001:db8:1:2::/64');
    for (const ip of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002:0:0:0:abcd', '2001:db8:1:2::1%eth0'])
      assert.equal(addressKey(ip), key, ip);
    assert.notEqual(addressKey('2001:db8:1:3::1'), key);
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
    assert.equal(addressKey('64:ff9b::192.0.2.33'), '64:ff9b:0:0::/64');
  });
});
