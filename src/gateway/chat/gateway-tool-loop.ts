import {
  callWithFallback,
  streamWithFallback,
  type Attempt,
  type RouteOptions,
  type UpstreamTarget,
} from '../../providers/index.js';
import { type ProviderCompletion, type ProviderStreamEvent, type TokenUsage } from '../../canonical/completion.js';
import { worstCaseMicroUsd } from '../../metering/cost.js';
import { countRequestTokens, countTextTokens } from '../../tokenize/index.js';
import { runGatewayTool } from '../../gateway-tools/run-tool.js';
import type { GatewayToolResult } from '../../gateway-tools/pending-operations.js';
import type { ChatMessage, ChatRequest, ToolCall } from '../../canonical/chat-request.js';
import { GatewayError } from '../errors.js';
import type { Execution, JsonResult, StreamSession } from './execution.js';
import type { GatewayToolPlan } from './gateway-tool-plan.js';
import { ZERO_USAGE } from './metering.js';
import { toProviderGatewayError } from './provider-error.js';
import { StreamAccumulator } from './stream-accumulator.js';
import { ToolCallRelay } from './tool-call-relay.js';
import { asAbortSignal } from './client-abort.js';

/**
 * Gateway tool rounds the gateway runs for one client request. After the fifth, the model is
 * called once more with `tool_choice: "none"` and that answer is final, whatever it holds.
 */
export const MAX_GATEWAY_TOOL_ROUNDS = 5;

/** Same headroom as admission: our token count is an estimate of the provider's. */
const ESTIMATE_HEADROOM = 1.1;

/** HTTP status recorded for a request whose client went away. */
const CLIENT_CLOSED_REQUEST = 499;

export interface ExecutedTool {
  name: string;
  success: boolean;
  call_id: string;
  duration_ms: number;
  round: number;
  error?: string;
}

/** What the loop borrows from execute.ts: its metering, its response extras and its routing options. */
export interface LoopHooks {
  routeOptions: RouteOptions;
  record(
    provider: string,
    upstreamModel: string,
    stream: boolean,
    outcome: { status: number; errorCode: string | null; usage: TokenUsage },
  ): void;
  extras(attempts: Attempt[], provider: string, upstreamModel: string): Record<string, unknown>;
}

export function hasGatewayTools(execution: Execution): boolean {
  return (execution.admission.gatewayTools?.tools.size ?? 0) > 0;
}

/** The state of one client request across its upstream calls. */
class ToolLoop {
  readonly plan: GatewayToolPlan;
  body: ChatRequest;
  rounds = 0;
  usage: TokenUsage = { ...ZERO_USAGE };
  readonly executed: ExecutedTool[] = [];
  readonly attempts: Attempt[] = [];
  target: UpstreamTarget;
  pendingId: string | undefined;

  constructor(private readonly execution: Execution) {
    this.plan = execution.admission.gatewayTools!;
    this.body = execution.admission.body;
    this.target = execution.admission.targets[0]!;
  }

  /** Once the rounds are used up, the model must answer: `tool_choice: "none"`. */
  get lastCall(): boolean {
    return this.rounds >= MAX_GATEWAY_TOOL_ROUNDS;
  }

  request(): ChatRequest {
    return this.lastCall ? { ...this.body, tool_choice: 'none' } : this.body;
  }

  routed(attempts: Attempt[], target: UpstreamTarget): void {
    this.attempts.push(...attempts);
    this.target = target;
  }

  addUsage(usage: TokenUsage): void {
    this.usage = {
      inputTokens: this.usage.inputTokens + usage.inputTokens,
      cachedInputTokens: this.usage.cachedInputTokens + usage.cachedInputTokens,
      cacheCreationInputTokens: this.usage.cacheCreationInputTokens + usage.cacheCreationInputTokens,
      outputTokens: this.usage.outputTokens + usage.outputTokens,
      reasoningTokens: this.usage.reasoningTokens + usage.reasoningTokens,
    };
  }

  /** Our estimate of the current call's prompt, for a call that ended without usage. */
  promptEstimate(): number {
    return this.rounds === 0
      ? this.execution.admission.promptEstimate
      : countRequestTokens(this.body, this.execution.admission.tokenizer);
  }

  /** Our counts for a call that ended without usage (aborted, or the provider sent none). */
  estimateUsage(accumulator: StreamAccumulator): TokenUsage {
    const text = accumulator.producedText();
    return {
      ...ZERO_USAGE,
      inputTokens: this.promptEstimate(),
      outputTokens: text ? countTextTokens(text, this.execution.admission.tokenizer) : 0,
    };
  }

  isGateway(name: string): boolean {
    return this.plan.tools.has(name);
  }

  split(calls: ToolCall[] | undefined): { gateway: ToolCall[]; client: ToolCall[] } {
    const all = calls ?? [];
    return {
      gateway: all.filter((c) => this.isGateway(c.function.name)),
      client: all.filter((c) => !this.isGateway(c.function.name)),
    };
  }

  /** Runs the calls in parallel, each under its own time limit; failures become results too. */
  async run(calls: ToolCall[]): Promise<GatewayToolResult[]> {
    const round = this.rounds + 1;
    const signal = asAbortSignal(this.execution.signal);
    const outcomes = await Promise.all(
      calls.map((call) =>
        runGatewayTool(this.plan.tools.get(call.function.name)!, call.function.arguments, { signal }),
      ),
    );
    return calls.map((call, i) => {
      const outcome = outcomes[i]!;
      this.executed.push({
        name: call.function.name,
        success: outcome.success,
        call_id: call.id,
        duration_ms: outcome.durationMs,
        round,
        ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      });
      return { tool_call_id: call.id, name: call.function.name, content: outcome.content };
    });
  }

  /**
   * Appends the model's turn and the tool results. A `tool_choice` that forces a call
   * (`required`, or one named function) applied to the first call only: later rounds use `auto`,
   * or the model could never stop calling tools.
   */
  append(message: ProviderCompletion['message'], calls: ToolCall[], results: GatewayToolResult[]): void {
    const assistant: ChatMessage = { role: 'assistant', content: message.content, tool_calls: calls };
    const toolMessages: ChatMessage[] = results.map((r) => ({
      role: 'tool',
      tool_call_id: r.tool_call_id,
      content: r.content,
    }));
    const choice = this.body.tool_choice;
    const forced =
      choice === 'required' ||
      (typeof choice === 'object' && (choice.type === 'required' || choice.type === 'function'));
    this.body = {
      ...this.body,
      messages: [...this.body.messages, assistant, ...toolMessages],
      ...(forced ? { tool_choice: 'auto' as const } : {}),
    };
    this.rounds++;
  }

  /**
   * A key with a ceiling: admission reserved the worst case of one call. Each further call grows
   * that reservation by its own worst case (its longer prompt, the same output limit) before it
   * is made; when that does not fit, the request ends with 429 usage_limit_exceeded (the calls
   * already made are metered). The whole reservation is settled with the request's usage row.
   */
  async reserveNextCall(): Promise<void> {
    const { admission, services, request } = this.execution;
    const ceiling = request.apiKey.maxUsageUsd;
    if (ceiling === null || !admission.reservation) return;
    const prompt = Math.ceil(countRequestTokens(this.body, admission.tokenizer) * ESTIMATE_HEADROOM);
    const worstCase = worstCaseMicroUsd(admission.model.pricing, prompt, admission.maxOutputTokens);
    if (!(await services.budget.extend(admission.reservation, ceiling * 1_000_000, worstCase))) {
      throw new GatewayError('usage_limit_exceeded', {
        message: `Gateway tool round ${this.rounds + 1} could cost up to $${(worstCase / 1e6).toFixed(6)} more, which does not fit under the key's monthly limit of $${ceiling}.`,
      });
    }
  }

  /** Stores a mixed turn: every call in the model's order, and the results of the gateway's. */
  async defer(calls: ToolCall[], results: GatewayToolResult[]): Promise<void> {
    const { services, request } = this.execution;
    const operation = await services.gatewayTools!.pending.create({
      organizationId: request.apiKey.organizationId,
      apiKeyId: request.apiKey.id,
      toolCalls: calls,
      gatewayResults: results,
    });
    this.pendingId = operation.id;
  }

  /** Members added to the response, its final stream chunks included. */
  gatewayExtras(): Record<string, unknown> {
    return {
      ...(this.executed.length > 0 ? { gateway_tools_executed: this.executed } : {}),
      ...(this.pendingId ? { gateway_pending_id: this.pendingId } : {}),
    };
  }
}

/** The client's view of a deferred turn: its own calls only, and finish_reason tool_calls. */
function clientTurn(completion: ProviderCompletion, client: ToolCall[], usage: TokenUsage): ProviderCompletion {
  return { ...completion, message: { ...completion.message, tool_calls: client }, finishReason: 'tool_calls', usage };
}

/**
 * Non-streamed: call, run the gateway tools the model asked for, call again — until the model
 * answers without gateway tools, or calls client tools too (deferred), or the rounds run out.
 * Metered once with the usage of every call.
 */
export async function executeJsonWithTools(execution: Execution, hooks: LoopHooks): Promise<JsonResult> {
  const loop = new ToolLoop(execution);
  try {
    for (;;) {
      const routed = await upstream(
        () => callWithFallback(loop.request(), execution.admission.targets, hooks.routeOptions),
        loop,
      );
      loop.routed(routed.attempts, routed.target);
      loop.addUsage(routed.result.usage);
      let completion: ProviderCompletion = { ...routed.result, usage: loop.usage };
      const calls = routed.result.message.tool_calls ?? [];
      const { gateway, client } = loop.split(calls);
      if (gateway.length > 0 && !loop.lastCall) {
        const results = await loop.run(gateway);
        if (client.length > 0) {
          await loop.defer(calls, results);
          completion = clientTurn(completion, client, loop.usage);
        } else {
          loop.append(routed.result.message, calls, results);
          await loop.reserveNextCall();
          continue;
        }
      }
      hooks.record(loop.target.providerId, loop.target.upstreamModel, false, {
        status: 200,
        errorCode: null,
        usage: loop.usage,
      });
      return {
        completion,
        extras: {
          ...hooks.extras(loop.attempts, loop.target.providerId, loop.target.upstreamModel),
          ...loop.gatewayExtras(),
        },
      };
    }
  } catch (error) {
    throw failed(execution, hooks, loop, error, false, loop.usage);
  }
}

/**
 * Streamed: the client's stream carries every round's text as the model writes it, and its own
 * tool calls (re-indexed from 0); gateway tool-call deltas are never sent, and a gateway-only
 * round sends no finish event — the gateway runs the tools and the next round's deltas follow
 * on the same stream. The usage event at the end carries the summed usage. Resolves once the
 * first call has answered, so a failure before that is an ordinary JSON error.
 */
export async function executeStreamWithTools(execution: Execution, hooks: LoopHooks): Promise<StreamSession> {
  const loop = new ToolLoop(execution);
  const { admission } = execution;
  let current: Awaited<ReturnType<typeof streamWithFallback>>;
  try {
    current = await upstream(() => streamWithFallback(loop.request(), admission.targets, hooks.routeOptions), loop);
  } catch (error) {
    const usage = execution.signal.aborted ? { ...ZERO_USAGE, inputTokens: admission.promptEstimate } : ZERO_USAGE;
    throw failed(execution, hooks, loop, error, true, usage);
  }
  loop.routed(current.attempts, current.target);
  let finalUsage: TokenUsage = ZERO_USAGE;

  async function* events(): AsyncGenerator<ProviderStreamEvent> {
    let outcome: { status: number; errorCode: string | null } | undefined;
    let accumulator = new StreamAccumulator();
    // The current call's usage is not in the sum yet; `opened`: its upstream answered.
    let counted = false;
    let opened = true;
    try {
      for (;;) {
        // The last call's answer is final, its calls included: nothing is held back from it.
        const relay = new ToolCallRelay((name) => !loop.lastCall && loop.isGateway(name));
        let finish: ProviderStreamEvent | undefined;
        try {
          for await (const event of current.result) {
            accumulator.add(event);
            if (event.type === 'delta') {
              const forwarded = relay.filter(event);
              if (forwarded) yield forwarded;
            } else if (event.type === 'finish') {
              finish = event;
            } else if (event.type === 'meta') {
              yield event;
            }
          }
        } catch (error) {
          throw toProviderGatewayError(error, loop.target.providerId);
        }
        loop.addUsage(accumulator.usage ?? loop.estimateUsage(accumulator));
        counted = true;
        const calls = accumulator.calls();
        const { gateway, client } = loop.split(calls);
        if (gateway.length === 0 || loop.lastCall) {
          if (finish) yield finish;
          break;
        }
        const results = await loop.run(gateway);
        if (client.length > 0) {
          await loop.defer(calls, results);
          yield { type: 'finish', finishReason: 'tool_calls' };
          break;
        }
        loop.append(accumulator.toCompletion(ZERO_USAGE).message, calls, results);
        await loop.reserveNextCall();
        accumulator = new StreamAccumulator();
        counted = false;
        opened = false;
        current = await upstream(() => streamWithFallback(loop.request(), admission.targets, hooks.routeOptions), loop);
        opened = true;
        loop.routed(current.attempts, current.target);
      }
      yield { type: 'usage', usage: loop.usage };
      outcome = { status: 200, errorCode: null };
    } catch (error) {
      const gatewayError = error instanceof GatewayError ? error : new GatewayError('internal_error');
      if (!(error instanceof GatewayError))
        execution.services.logger.error({ err: error, requestId: admission.requestId }, 'gateway tool loop failed');
      outcome = execution.signal.aborted
        ? { status: CLIENT_CLOSED_REQUEST, errorCode: 'client_closed' }
        : { status: gatewayError.status, errorCode: gatewayError.code };
      throw gatewayError;
    } finally {
      // No outcome: the consumer stopped iterating (its client left); the upstream is aborted by now.
      outcome ??= { status: CLIENT_CLOSED_REQUEST, errorCode: 'client_closed' };
      // A call cut short is charged what we saw of it; one that never answered only when the
      // client left (the provider may have processed the prompt), never for an upstream failure.
      if (!counted && (opened || execution.signal.aborted))
        loop.addUsage(accumulator.usage ?? loop.estimateUsage(accumulator));
      finalUsage = loop.usage;
      hooks.record(loop.target.providerId, loop.target.upstreamModel, true, { ...outcome, usage: finalUsage });
    }
  }

  return {
    events: events(),
    usage: () => finalUsage,
    extras: () => ({
      ...hooks.extras(loop.attempts, loop.target.providerId, loop.target.upstreamModel),
      ...loop.gatewayExtras(),
    }),
    gatewayExtras: () => loop.gatewayExtras(),
  };
}

/** An upstream call; its failure becomes the client-facing provider error. */
async function upstream<T>(call: () => Promise<T>, loop: ToolLoop): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toProviderGatewayError(error, loop.target.providerId);
  }
}

/** Meters a request that ended in an error (after any number of calls) and returns what the client gets. */
function failed(
  execution: Execution,
  hooks: LoopHooks,
  loop: ToolLoop,
  error: unknown,
  stream: boolean,
  usage: TokenUsage,
): GatewayError {
  const gatewayError = error instanceof GatewayError ? error : new GatewayError('internal_error');
  if (!(error instanceof GatewayError))
    execution.services.logger.error(
      { err: error, requestId: execution.admission.requestId },
      'gateway tool loop failed',
    );
  const clientGone = execution.signal.aborted;
  // A client that left mid-call is charged that call's estimated prompt on top of the calls made.
  const charged =
    clientGone && usage === loop.usage ? { ...usage, inputTokens: usage.inputTokens + loop.promptEstimate() } : usage;
  hooks.record(loop.target.providerId, loop.target.upstreamModel, stream, {
    status: clientGone ? CLIENT_CLOSED_REQUEST : gatewayError.status,
    errorCode: clientGone ? 'client_closed' : gatewayError.code,
    usage: charged,
  });
  return gatewayError;
}
