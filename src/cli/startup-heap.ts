import { setFlagsFromString } from 'node:v8';

/**
 * The young generation during start-up. Nearly everything a process allocates while it loads its
 * modules survives, so V8 doubles the semi-spaces at each scavenge until they reach
 * `--max-semi-space-size` (16 MB): 32 MB of young generation stays resident in a process that then
 * idles, until V8's memory reducer runs (10–60 s later, or never). Holding the growth factor at 1
 * keeps the semi-spaces at their initial 1 MB while the gateway starts; released once it listens,
 * they grow under load exactly as before (docs/decisions.md, "Memory").
 *
 * The command line cannot say this: V8 raises a growth factor below 2 to 2 when it parses its
 * flags, but reads the flag at each growth, so it is set at run time, first thing in bin/gateway.
 */
export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/** V8's default growth factor again: from here the young generation sizes itself to the load. */
export function releaseYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=2');
}
