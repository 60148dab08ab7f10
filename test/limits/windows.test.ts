import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { secondsUntil, windowAt } from '../../src/limits/windows.js';

const at = (iso: string) => Date.parse(iso);

describe('limit windows', () => {
  it('a daily window is the UTC day, or the day of the organization’s offset', () => {
    assert.deepEqual(windowAt('daily', at('2026-03-10T23:30:00Z')), {
      start: at('2026-03-10T00:00:00Z'),
      end: at('2026-03-11T00:00:00Z'),
    });
    // UTC+2: 23:30 UTC is already 01:30 on the 11th.
    assert.deepEqual(windowAt('daily', at('2026-03-10T23:30:00Z'), 120), {
      start: at('2026-03-10T22:00:00Z'),
      end: at('2026-03-11T22:00:00Z'),
    });
    // UTC−5: 03:00 UTC is still the evening before.
    assert.deepEqual(windowAt('daily', at('2026-03-10T03:00:00Z'), -300), {
      start: at('2026-03-09T05:00:00Z'),
      end: at('2026-03-10T05:00:00Z'),
    });
  });

  it('a monthly window is the calendar month, across year ends and with an offset', () => {
    assert.deepEqual(windowAt('monthly', at('2026-12-31T23:59:59Z')), {
      start: at('2026-12-01T00:00:00Z'),
      end: at('2027-01-01T00:00:00Z'),
    });
    assert.deepEqual(windowAt('monthly', at('2026-12-31T23:00:00Z'), 120), {
      start: at('2026-12-31T22:00:00Z'),
      end: at('2027-01-31T22:00:00Z'),
    });
    assert.deepEqual(windowAt('monthly', at('2026-02-15T00:00:00Z')).end, at('2026-03-01T00:00:00Z'));
  });

  it('a lifetime window never ends, and has no Retry-After', () => {
    const lifetime = windowAt('lifetime', Date.now(), 300);
    assert.deepEqual(lifetime, { start: 0, end: Infinity });
    assert.equal(secondsUntil(lifetime.end, Date.now()), undefined);
    assert.equal(secondsUntil(at('2026-03-11T00:00:00Z'), at('2026-03-10T23:59:59.200Z')), 1);
    assert.equal(secondsUntil(at('2026-03-11T00:00:00Z'), at('2026-03-10T23:00:00Z')), 3600);
  });
});
