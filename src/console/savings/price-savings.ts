import type { Pricing } from '../../config/gateway-config.js';
import type { SavingsSums } from '../../store/usage-savings.js';

/** Money and tokens saved, in micro-USD (integers once rounded), for one cell or a sum of cells. */
export interface SavingsAmounts {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** What the cached reads would have cost at the input price minus what they cost. */
  cacheReadSavingsMicroUsd: number;
  /** What the cache writes cost above the plain input price. */
  cacheWriteExtraMicroUsd: number;
  compressedRequests: number;
  compressionSavedTokens: number;
  /** Recorded amounts plus estimates. */
  compressionSavingsMicroUsd: number;
  /** The part of compressionSavingsMicroUsd that is estimated (saved tokens at the input price). */
  compressionEstimatedMicroUsd: number;
  compressionEstimatedRequests: number;
}

export function emptyAmounts(): SavingsAmounts {
  return {
    requests: 0,
    inputTokens: 0,
    outputTokens: 0,
    costMicroUsd: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheReadSavingsMicroUsd: 0,
    cacheWriteExtraMicroUsd: 0,
    compressedRequests: 0,
    compressionSavedTokens: 0,
    compressionSavingsMicroUsd: 0,
    compressionEstimatedMicroUsd: 0,
    compressionEstimatedRequests: 0,
  };
}

export function addAmounts(into: SavingsAmounts, from: SavingsAmounts): void {
  for (const field of Object.keys(into) as Array<keyof SavingsAmounts>) into[field] += from[field];
}

/** Net saving of prompt caching: cheaper reads minus dearer writes. */
export const cachingSavings = (a: SavingsAmounts) => a.cacheReadSavingsMicroUsd - a.cacheWriteExtraMicroUsd;
export const totalSavings = (a: SavingsAmounts) => cachingSavings(a) + a.compressionSavingsMicroUsd;

/**
 * Prices one cell with its model's catalogue prices (a price per million tokens is micro-USD per
 * token). Each amount is rounded per cell, so every sum of cells is a sum of integers: groups,
 * series and totals add up exactly. `pricing` undefined (a model no longer in the catalogue):
 * only what needs no price is counted — recorded compression savings — and the caller says so.
 */
export function priceCell(cell: SavingsSums, pricing: Pricing | undefined): SavingsAmounts {
  const input = pricing?.input_per_mtok ?? 0;
  const read = pricing?.cached_input_per_mtok ?? input;
  const write = pricing?.cache_write_per_mtok ?? input;
  const estimated = Math.round(cell.estimatedSavedTokens * input);
  return {
    requests: cell.requests,
    inputTokens: cell.inputTokens,
    outputTokens: cell.outputTokens,
    costMicroUsd: cell.costMicroUsd,
    cacheReadTokens: cell.cacheReadTokens,
    cacheWriteTokens: cell.cacheWriteTokens,
    cacheReadSavingsMicroUsd: Math.round(cell.cacheReadTokens * (input - read)),
    cacheWriteExtraMicroUsd: Math.round(cell.cacheWriteTokens * (write - input)),
    compressedRequests: cell.compressedRequests,
    compressionSavedTokens: cell.compressionSavedTokens,
    compressionSavingsMicroUsd: cell.recordedCompressionMicroUsd + estimated,
    compressionEstimatedMicroUsd: estimated,
    compressionEstimatedRequests: cell.estimatedRequests,
  };
}

/** Whether pricing the cell needed a price it did not have. */
export const needsPrice = (cell: SavingsSums) =>
  cell.cacheReadTokens > 0 || cell.cacheWriteTokens > 0 || cell.estimatedSavedTokens > 0;
