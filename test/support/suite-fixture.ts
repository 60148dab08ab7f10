import { after, before } from 'node:test';

/**
 * What `start` makes, started before the first test of the suite this is called in and stopped
 * after its last. The object returned is filled in place when it has started, so tests read its
 * members when they run, never when the suite is declared.
 */
export function suiteFixture<T extends { stop(): Promise<void> }>(start: () => Promise<T>): T {
  const fixture = {} as T;
  let started = false;
  before(async () => {
    Object.assign(fixture, await start());
    started = true;
  });
  after(async () => {
    if (started) await fixture.stop();
  });
  return fixture;
}
