import { callWithFallback, streamWithFallback } from '../providers/index.js';
import type { ProviderCompletion, ProviderStreamEvent, TokenUsage } from '../canonical/completion.js';
import type { ChatMessage, ChatRequest, ToolCall } from '../canonical/chat-request.js';
import { worstCaseMicroUsd } from '../catalogue/cost.js';
import { countRequestTokens } from '../tokenize/index.js';
import { countRequestTokensOffloaded } from '../offload/index.js';
import { runGatewayTool } from '../gateway-tools/run-tool.js';
import type { GatewayToolResult } from '../gateway-tools/pending-operations.js';
import { GatewayError } from './errors.js';
import type { Call } from './call.js';
import type { GatewayToolPlan } from './gateway-tool-plan.js';
import { ZERO_USAGE } from './meter.js';
import { StreamAccumulator } from './stream-accumulator.js';
import { ToolCallRelay } from './tool-call-relay.js';
import { asAbortSignal } from './client-abort.js';
import type { UpstreamStream } from './single-call.js';
import type { TranslatedPlan } from './plan.js';
import { CANONICAL_COUNTED, uncountedMemberTokens } from './unseen-prompt.js';

/**
 * Gateway tool rounds the gateway runs for one client request. After the fifth, the model is
 * called once more with `tool_choice: "none"` and that answer is final, whatever it holds.
 */
export const MAX_GATEWAY_TOOL_ROUNDS = 5;

/** Same headroom as admission: our token count is an estimate of the provider's. */
const ESTIMATE_HEADROOM = 1.1;

export interface ExecutedTool {
  name: string;
  success: boolean;
  call_id: string;
  duration_ms: number;
  round: number;
  error?: string;
}

/** Whether the request runs the gateway-tool loop: gateway tools were injected into its body. */
export function hasGatewayTools(call: Call): boolean {
  return (call.admission.gatewayTools?.tools.size ?? 0) > 0;
}

/**
 * The state of one client request across its upstream calls: the gateway-tool loop. `toolLoopJson`
 * and `toolLoopStream` only call upstream and run the tools; `serve` answers, fails and settles
 * the request, charging a failure what `charge` says.
 */
export class ToolLoop {
  readonly plan: GatewayToolPlan;
  body: ChatRequest;
  rounds = 0;
  usage: TokenUsage = { ...ZERO_USAGE };
  readonly executed: ExecutedTool[] = [];
  pendingId: string | undefined;
  readonly targets: TranslatedPlan['targets'];

  constructor(
    readonly call: Call,
    plan: TranslatedPlan,
  ) {
    this.plan = call.admission.gatewayTools!;
    this.body = plan.body;
    this.targets = plan.targets;
  }

  /** The loop's failure charge: the calls made, plus the current call's estimated prompt when the client left. */
  charge(clientGone: boolean): TokenUsage {
    return clientGone ? { ...this.usage, inputTokens: this.usage.inputTokens + this.promptEstimate() } : this.usage;
  }

  /** Once the rounds are used up, the model must answer: `tool_choice: "none"`. */
  get lastCall(): boolean {
    return this.rounds >= MAX_GATEWAY_TOOL_ROUNDS;
  }

  request(): ChatRequest {
    return this.lastCall ? { ...this.body, tool_choice: 'none' } : this.body;
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
      ? this.call.admission.promptEstimate
      : countRequestTokens(this.body, this.call.admission.tokenizer);
  }

  /** Our counts for a call that ended without usage (aborted, or the provider sent none). */
  estimateUsage(accumulator: StreamAccumulator): TokenUsage {
    return this.call.estimateUsage(this.promptEstimate(), accumulator.producedText());
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
    const signal = asAbortSignal(this.call.signal);
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
   * A key with a ceiling or spend limits: admission reserved the worst case of one call. Each further call grows
   * that reservation by its own worst case (its longer prompt, the same output limit) before it
   * is made; when that does not fit, the request ends with 429 usage_limit_exceeded (the calls
   * already made are metered). The whole reservation is settled with the request's usage row.
   */
  async reserveNextCall(): Promise<void> {
    const { admission, services, request } = this.call;
    const ceiling = request.apiKey.maxUsageUsd;
    if (!admission.reservation) return;
    const counted = await countRequestTokensOffloaded(this.body, admission.tokenizer);
    // The members the count does not read go upstream on every round too (unseen-prompt.ts).
    const body = this.body as unknown as Record<string, unknown>;
    const unseen = await uncountedMemberTokens(body, CANONICAL_COUNTED, admission.tokenizer);
    const prompt = Math.ceil((counted + unseen) * ESTIMATE_HEADROOM);
    const worstCase = worstCaseMicroUsd(admission.model.pricing, prompt, admission.maxOutputTokens);
    if (
      !(await services.budget.extend(admission.reservation, ceiling === null ? null : ceiling * 1_000_000, worstCase))
    ) {
      throw new GatewayError('usage_limit_exceeded', {
        message: `Gateway tool round ${this.rounds + 1} could cost up to $${(worstCase / 1e6).toFixed(6)} more, which does not fit under ${ceiling === null ? 'the spend limits that apply to this key' : `the key's monthly limit of $${ceiling}`}.`,
      });
    }
  }

  /** Stores a mixed turn: every call in the model's order, and the results of the gateway's. */
  async defer(calls: ToolCall[], results: GatewayToolResult[]): Promise<void> {
    const { services, request } = this.call;
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
 * `serve` settles it once with the usage of every call.
 */
export async function toolLoopJson(loop: ToolLoop): Promise<ProviderCompletion> {
  const { call } = loop;
  for (;;) {
    const routed = await call.route((options) => callWithFallback(loop.request(), loop.targets, options));
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
    return completion;
  }
}

/**
 * Streamed: the client's stream carries every round's text as the model writes it, and its own
 * tool calls (re-indexed from 0); gateway tool-call deltas are never sent, and a gateway-only
 * round sends no finish event — the gateway runs the tools and the next round's deltas follow
 * on the same stream. The usage event at the end carries the summed usage. Resolves once the
 * first call has answered, so a failure before that is an ordinary JSON error.
 */
export async function toolLoopStream(loop: ToolLoop): Promise<UpstreamStream<ProviderStreamEvent>> {
  const { call } = loop;
  const open = () => call.route((options) => streamWithFallback(loop.request(), loop.targets, options));
  let current = await open();
  let accumulator = new StreamAccumulator(call.keptText());
  // The current call's usage is not in the sum yet; `opened`: its upstream answered.
  let counted = false;
  let opened = true;

  async function* rounds(): AsyncGenerator<ProviderStreamEvent> {
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
        throw call.upstreamFailure(error, call.providerId);
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
      accumulator = new StreamAccumulator(call.keptText());
      counted = false;
      opened = false;
      current = await open();
      opened = true;
    }
    yield { type: 'usage', usage: loop.usage };
  }

  return {
    source: rounds(),
    usage: () => {
      // A call cut short is charged what we saw of it; one that never answered only when the
      // client left (the provider may have processed the prompt), never for an upstream failure.
      if (!counted && (opened || call.clientGone)) loop.addUsage(accumulator.usage ?? loop.estimateUsage(accumulator));
      return loop.usage;
    },
  };
}
