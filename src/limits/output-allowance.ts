import type { Pricing } from '../config/gateway-config.js';
import { worstCaseMicroUsd } from '../catalogue/cost.js';
import type { BudgetLedger, Reservation, SpendBounds, SpendWindow } from './budget-ledger.js';

/**
 * The smallest answer a request with a ceiling is admitted for (docs/budgets.md): a key whose
 * room cannot pay for the prompt and this many output tokens (or the client's own smaller
 * `max_tokens`) is refused with 429; any room above it is spent on a larger output cap.
 */
export const MIN_ANSWER_TOKENS = 1024;

export interface OutputAllowance {
  reservation: Reservation;
  /** The output cap the reservation pays for: what goes upstream as the request's max tokens. */
  outputTokens: number;
}

export interface AllowanceRequest {
  pricing: Pricing;
  /** The prompt as the gateway counts it, headroom included. */
  promptTokens: number;
  /** The most output the request may ask for: the client's cap, else the model's maximum (never above it). */
  requestedOutputTokens: number;
}

/** The cheapest and the dearest reservation a request can be admitted with. */
export function allowanceBounds(request: AllowanceRequest): { minimumMicroUsd: number; maximumMicroUsd: number } {
  const { pricing, promptTokens, requestedOutputTokens } = request;
  const minimumOutput = Math.min(requestedOutputTokens, MIN_ANSWER_TOKENS);
  return {
    minimumMicroUsd: worstCaseMicroUsd(pricing, promptTokens, minimumOutput),
    maximumMicroUsd: worstCaseMicroUsd(pricing, promptTokens, requestedOutputTokens),
  };
}

/**
 * The largest output cap, at most `requestedOutputTokens`, whose worst case (the prompt at the
 * highest input price plus every output token) fits in `grantedMicroUsd`.
 */
export function outputTokensPaidBy(request: AllowanceRequest, grantedMicroUsd: number): number {
  const { pricing, promptTokens, requestedOutputTokens } = request;
  if (worstCaseMicroUsd(pricing, promptTokens, requestedOutputTokens) <= grantedMicroUsd) return requestedOutputTokens;
  const inputPrice = Math.max(pricing.input_per_mtok, pricing.cache_write_per_mtok ?? 0);
  let tokens = Math.floor((grantedMicroUsd - promptTokens * inputPrice) / pricing.output_per_mtok);
  tokens = Math.max(0, Math.min(requestedOutputTokens, tokens));
  // Floating-point division can land one token high; the worst case is the rule.
  while (tokens > 0 && worstCaseMicroUsd(pricing, promptTokens, tokens) > grantedMicroUsd) tokens--;
  return tokens;
}

/**
 * Admission for a key with a ceiling: reserves the prompt plus as large an output allowance as
 * the key's remaining room pays for, up to what the request asked for, and returns the output
 * cap that reservation covers; undefined when the room cannot pay for the prompt and a minimal
 * answer. Because the cap sent upstream is the one the reservation pays for, the ceiling holds
 * by construction up to the prompt estimate's error (docs/budgets.md, "The bound").
 */
export async function reserveOutputAllowance(
  ledger: BudgetLedger,
  apiKeyId: string,
  ceilingMicroUsd: number,
  request: AllowanceRequest,
): Promise<OutputAllowance | undefined> {
  const outcome = await reserveAllowanceAgainst(ledger, apiKeyId, { ceilingMicroUsd, windows: [] }, request);
  return outcome.allowance;
}

export type AllowanceOutcome =
  | { allowance: OutputAllowance; blockedBy?: undefined }
  | { allowance: undefined; blockedBy: ReadonlyArray<'ceiling' | SpendWindow> };

/**
 * `reserveOutputAllowance` against every bound at once: the key's monthly ceiling (null: none)
 * and the windows of the spend limits that apply (docs/limits.md); the output cap is what the
 * smallest room pays for. A refusal names the bounds that cannot pay for the minimum.
 */
export async function reserveAllowanceAgainst(
  ledger: BudgetLedger,
  apiKeyId: string,
  bounds: SpendBounds,
  request: AllowanceRequest,
): Promise<AllowanceOutcome> {
  const { minimumMicroUsd, maximumMicroUsd } = allowanceBounds(request);
  const outcome = await ledger.reserveAgainst(apiKeyId, bounds, minimumMicroUsd, maximumMicroUsd);
  if (!outcome.reservation) return { allowance: undefined, blockedBy: outcome.blockedBy };
  const reservation = outcome.reservation;
  return { allowance: { reservation, outputTokens: outputTokensPaidBy(request, reservation.amountMicroUsd) } };
}

interface OutputCapFields {
  max_tokens?: number | null | undefined;
  max_completion_tokens?: number | null | undefined;
}

/**
 * The body with its output cap at `cap`: each cap member the client sent is lowered to it (never
 * raised); when it sent none, `max_tokens` is added (each provider codec reads either name;
 * the OpenAI codec sends OpenAI's own API `max_completion_tokens`). Returns the same object when
 * nothing changes.
 */
export function withOutputCap<T extends OutputCapFields>(body: T, cap: number): T {
  const hasMax = typeof body.max_tokens === 'number';
  const hasCompletion = typeof body.max_completion_tokens === 'number';
  if (!hasMax && !hasCompletion) return { ...body, max_tokens: cap };
  const lowered: OutputCapFields = {};
  if (hasMax && body.max_tokens! > cap) lowered.max_tokens = cap;
  if (hasCompletion && body.max_completion_tokens! > cap) lowered.max_completion_tokens = cap;
  return Object.keys(lowered).length === 0 ? body : { ...body, ...lowered };
}
