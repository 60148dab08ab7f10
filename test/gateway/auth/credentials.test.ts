import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractGatewayKey } from '../../../src/gateway/auth/credentials.js';

/** The route's x-api-key option, counting how often it is asked (it costs the hook a route lookup). */
function routeOption(allowed: boolean): { ask: () => boolean; asked: () => number } {
  let asked = 0;
  return {
    ask: () => {
      asked++;
      return allowed;
    },
    asked: () => asked,
  };
}

describe('extractGatewayKey', () => {
  it('takes a Bearer key without asking the route about x-api-key', () => {
    const route = routeOption(true);
    const key = extractGatewayKey({ authorization: 'Bearer gw-one', 'x-api-key': 'gw-two' }, route.ask);
    assert.equal(key, 'gw-one');
    assert.equal(route.asked(), 0);
  });

  it('takes the Basic user name without asking the route', () => {
    const route = routeOption(true);
    const basic = Buffer.from('gw-basic:').toString('base64');
    assert.equal(extractGatewayKey({ authorization: `Basic ${basic}` }, route.ask), 'gw-basic');
    assert.equal(route.asked(), 0);
  });

  it('takes x-api-key only where the route allows it', () => {
    assert.equal(extractGatewayKey({ 'x-api-key': ' gw-two ' }, routeOption(true).ask), 'gw-two');
    assert.equal(extractGatewayKey({ 'x-api-key': 'gw-two' }, routeOption(false).ask), undefined);
  });

  it('does not ask the route when there is no x-api-key to accept', () => {
    const route = routeOption(true);
    assert.equal(extractGatewayKey({}, route.ask), undefined);
    assert.equal(extractGatewayKey({ 'x-api-key': '   ' }, route.ask), undefined);
    assert.equal(route.asked(), 0);
  });

  it('falls back to x-api-key when Authorization names another scheme', () => {
    const route = routeOption(true);
    assert.equal(extractGatewayKey({ authorization: 'Token abc', 'x-api-key': 'gw-two' }, route.ask), 'gw-two');
    assert.equal(route.asked(), 1);
  });
});
