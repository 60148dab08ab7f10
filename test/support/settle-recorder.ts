import { Call } from '../../src/pipeline/call.js';

/**
 * Records every request id the call core settles (Call.settle), as many times as it settles it,
 * until `restore()`: how a test shows each opened call is settled exactly once, by the core.
 */
export function recordSettles(): { settled: string[]; timesSettled(requestId: string): number; restore(): void } {
  const settled: string[] = [];
  const originalSettle = Call.prototype.settle;
  Call.prototype.settle = function (this: Call, ...args: Parameters<Call['settle']>) {
    settled.push(this.admission.requestId);
    return originalSettle.apply(this, args);
  };
  return {
    settled,
    timesSettled: (requestId) => settled.filter((id) => id === requestId).length,
    restore: () => {
      Call.prototype.settle = originalSettle;
    },
  };
}
