import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cachePricingFor } from '../../src/catalogue/cache-pricing.js';
import { NEW_CONVERSATION, type ConversationState } from '../../src/compress/conversation-state.js';
import {
  decideRewrite,
  expectedRemaining,
  isCold,
  recordVouches,
  stopRisk,
  type PolicyInput,
} from '../../src/compress/rewrite-policy.js';

const anthropic = cachePricingFor('anthropic', { input_per_mtok: 3, output_per_mtok: 15 });
const openai = cachePricingFor('openai', { input_per_mtok: 1.25, output_per_mtok: 10, cached_input_per_mtok: 0.125 });
const NOW = 1_000_000;

const state = (over: Partial<ConversationState> = {}): ConversationState => ({
  ...NEW_CONVERSATION,
  requests: 30,
  lastRequestAt: NOW - 20_000,
  lastCacheRead: 50_000,
  lastCacheWrite: 1_000,
  savedUnits: 100_000,
  ...over,
});

/** 40 items of 1,000 tokens; the rewrite would remove `saved` tokens from item 10 on. */
const input = (over: Partial<PolicyInput> = {}): PolicyInput => ({
  pricing: openai,
  state: state(),
  now: NOW,
  current: 0,
  candidate: 20,
  itemTokens: new Array<number>(40).fill(1000),
  totalTokens: 40_000,
  lastAssistantItem: 39,
  anchorItem: 2,
  savedTokens: 20_000,
  firstChangedItem: 10,
  breakpointRules: false,
  ...over,
});

describe('rewrite policy', () => {
  it('moves the boundary when more requests are expected than twice the breakeven, within the risk budget', () => {
    // Q = items 10..38 = 29k, S = 20k: R* = 9·29/20 − 10 = 3.05 on OpenAI prices.
    const d = decideRewrite(input({ expectedRemaining: 7 }));
    assert.equal(d.reason, 'breakeven');
    assert.equal(d.maskBefore, 20);
    assert.equal(d.changedTokens, 29_000);
    assert.ok(Math.abs(d.breakeven - 3.05) < 1e-9);
    assert.equal(decideRewrite(input({ expectedRemaining: 5 })).reason, undefined);
  });

  it('never risks more than the conversation saved so far', () => {
    // extra = 0.9 · (29k − 20k) − 0.1 · 20k = 6,100 units.
    const d = decideRewrite(input({ expectedRemaining: 50, state: state({ savedUnits: 6000 }) }));
    assert.equal(d.reason, undefined);
    assert.equal(d.maskBefore, 0);
  });

  it('risks the extra cost when the chance of a stop before it pays back keeps the expected loss within half the savings', () => {
    // At request 31 with R* = 3.05, a heavy-tailed length stops that soon with odds 3.05 / 34.05:
    // the expected loss is 546 units, within half of 6,200, though the extra (6,100) is not.
    const d = decideRewrite(input({ expectedRemaining: 50, state: state({ savedUnits: 6200 }) }));
    assert.equal(d.reason, 'breakeven');
    assert.ok(Math.abs(d.extraUnits - 6100) < 1e-6);
    // The key's finished conversations say those that got this far stopped within R*: refused.
    const stoppedSoon = new Array<number>(10).fill(33);
    const refused = decideRewrite(
      input({ expectedRemaining: 50, state: state({ savedUnits: 6200 }), history: stoppedSoon }),
    );
    assert.equal(refused.reason, undefined);
  });

  it("beyond the risk budget only when the key's record says conversations this far along go on", () => {
    // R* = 3.05 at request 31: 24 finished conversations went past it and on for 10 or more.
    const poor = state({ savedUnits: 1000 });
    const record = new Array<number>(24).fill(41);
    const vouched = decideRewrite(input({ state: poor, history: record }));
    assert.equal(vouched.reason, 'breakeven');
    // Too few of them, or too many stopped within 3 requests: the budget holds.
    assert.equal(decideRewrite(input({ state: poor, history: record.slice(0, 23) })).reason, undefined);
    assert.equal(decideRewrite(input({ state: poor, history: [...record, 31, 32, 33] })).reason, undefined);
  });

  it('under Anthropic rules the rewrite is read again from the boundary breakpoint, not from the change', () => {
    const d = decideRewrite(input({ pricing: anthropic, breakpointRules: true, expectedRemaining: 100 }));
    assert.equal(d.changedTokens, 36_000); // items 3..38
  });

  it('under Anthropic rules a rewrite that changes something before the boundary breakpoint is re-read from the system prompt', () => {
    const d = decideRewrite(
      input({
        pricing: anthropic,
        breakpointRules: true,
        anchorItem: 12,
        firstChangedItem: 10,
        expectedRemaining: 100,
      }),
    );
    assert.equal(d.changedTokens, 39_000); // items 0..38
  });

  it('may leave a conversation that stops right after the rewrite dearer by at most 0.25 % of what it cost so far', () => {
    // extra 6,100 against 6,000 saved: within 6,000 + 0.25 % of 100,000 spent, not of 20,000.
    const poor = state({ savedUnits: 6000 });
    assert.equal(decideRewrite(input({ expectedRemaining: 50, state: poor, spentUnits: 100_000 })).reason, 'breakeven');
    assert.equal(decideRewrite(input({ expectedRemaining: 50, state: poor, spentUnits: 20_000 })).reason, undefined);
  });

  it('a cold cache makes the rewrite free: after the TTL, or when the upstream read and wrote nothing', () => {
    assert.equal(
      decideRewrite(input({ state: state({ lastRequestAt: NOW - 301_000, savedUnits: 0 }) })).reason,
      'cold_cache',
    );
    const nothingCached = state({ lastCacheRead: 0, lastCacheWrite: 0, savedUnits: 0 });
    assert.equal(decideRewrite(input({ state: nothingCached })).reason, 'cold_cache');
    // The first request fills the cache: the second one's "no read" says nothing.
    assert.equal(isCold(openai, { ...nothingCached, requests: 1 }, NOW), false);
  });

  it('a prompt near the context window is rewritten', () => {
    const d = decideRewrite(input({ totalTokens: 110_000, expectedRemaining: 0 }));
    assert.equal(d.reason, 'context_window');
  });

  it('nothing to gain: the boundary stays', () => {
    assert.equal(decideRewrite(input({ savedTokens: 0, expectedRemaining: 100 })).reason, undefined);
    assert.equal(decideRewrite(input({ candidate: 0, expectedRemaining: 100 })).maskBefore, 0);
  });
});

describe('expected remaining requests', () => {
  it('without history: half the requests seen so far', () => {
    assert.equal(expectedRemaining(20, undefined), 10);
    assert.equal(expectedRemaining(20, [30, 40]), 10);
  });

  it("with the key's history: the median of how long the conversations that got this far went on", () => {
    const history = [10, 12, 25, 30, 35, 40, 45, 50, 60, 80];
    assert.equal(expectedRemaining(20, history), 25); // 5 10 15 20 25 30 40 60 → index 4
  });

  it('a record vouches when at least 24 got this far and at most 5 % of them stopped within the breakeven', () => {
    const far = new Array<number>(39).fill(60);
    assert.equal(recordVouches(20, 10, far), true);
    assert.equal(recordVouches(20, 10, [...far, 25]), true); // 1 of 40 stopped early
    assert.equal(recordVouches(20, 10, [...far, 25, 29, 20]), false); // 3 of 42
    // A conversation of exactly 20 requests got this far and stopped right after it.
    assert.equal(recordVouches(20, 10, [...far.slice(0, 22), 5, 10, 20]), false); // 23 got this far
    assert.equal(recordVouches(20, 10, [...far.slice(0, 23), 20]), true);
    assert.equal(recordVouches(20, 10, undefined), false);
  });

  it('a conversation longer than nearly all the history expects little more', () => {
    assert.equal(expectedRemaining(100, [10, 20, 30, 40, 50, 60, 70, 80, 90, 200]), 0);
  });
});

describe('chance of a stop before a rewrite pays back', () => {
  it('without enough history: the Lindy survival, breakeven / (requests so far + breakeven)', () => {
    assert.equal(stopRisk(10, 10, undefined), 0.5);
    assert.equal(stopRisk(30, 3, [40, 50]), 3 / 33);
    assert.equal(stopRisk(30, Number.POSITIVE_INFINITY, undefined), 1);
  });

  it('with 8 or more finished conversations that got this far: the share of them that stopped within the breakeven', () => {
    const history = [12, 14, 20, 30, 40, 50, 60, 70, 5, 6];
    assert.equal(stopRisk(10, 5, history), 2 / 8);
  });
});
