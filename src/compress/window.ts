/**
 * The masking boundary, in assistant tool turns. It moves in steps of `step` turns and
 * always leaves the latest `keep` turns whole, so between two steps every older message
 * compresses to the same bytes (the provider's prompt cache keeps hitting) and the newest
 * observations are never masked.
 */
export function frozenBefore(turnCount: number, window: { keep: number; step: number }): number {
  const eligible = Math.max(0, turnCount - window.keep);
  return Math.floor(eligible / window.step) * window.step;
}
