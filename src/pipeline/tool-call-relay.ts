import type { ProviderStreamEvent, ToolCallDelta } from '../canonical/completion.js';

/**
 * Filters one round's tool-call deltas: a call is classified by the name in its first named
 * fragment; gateway calls are dropped, client calls are passed on re-indexed 0, 1, … so the
 * client sees a contiguous list. Fragments that arrive before their call's name are held.
 */
export class ToolCallRelay {
  private readonly kinds = new Map<number, { gateway: boolean; index: number }>();
  private readonly held = new Map<number, ToolCallDelta[]>();
  private clientCalls = 0;

  constructor(private readonly isGateway: (name: string) => boolean) {}

  filter(event: Extract<ProviderStreamEvent, { type: 'delta' }>): ProviderStreamEvent | undefined {
    if (!event.toolCalls?.length) return event;
    const passed: ToolCallDelta[] = [];
    for (const fragment of event.toolCalls) {
      let kind = this.kinds.get(fragment.index);
      if (!kind) {
        if (!fragment.function?.name) {
          this.held.set(fragment.index, [...(this.held.get(fragment.index) ?? []), fragment]);
          continue;
        }
        kind = this.isGateway(fragment.function.name)
          ? { gateway: true, index: -1 }
          : { gateway: false, index: this.clientCalls++ };
        this.kinds.set(fragment.index, kind);
        const earlier = this.held.get(fragment.index) ?? [];
        this.held.delete(fragment.index);
        if (!kind.gateway) for (const held of earlier) passed.push({ ...held, index: kind.index });
      }
      if (!kind.gateway) passed.push({ ...fragment, index: kind.index });
    }
    const { toolCalls: _dropped, ...rest } = event;
    if (passed.length > 0) return { ...rest, toolCalls: passed };
    return rest.content || rest.refusal ? rest : undefined;
  }
}
