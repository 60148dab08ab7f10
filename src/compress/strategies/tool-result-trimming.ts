import { toolKind } from '../bundles.js';
import { BoundedCache, registerCache } from '../cache.js';
import { commandText, outputKind } from '../filters/classify.js';
import { trimOutput } from '../filters/index.js';
import { isPlaceholder } from '../filters/markers.js';
import type { ToolResult } from '../types.js';
import { open, replace, type Strategy, type StrategyContext } from './strategy.js';

// One cache per (kind, line-number policy), keyed by the raw text: no per-request key building.
const memos = new Map<string, BoundedCache<string>>();
function memoFor(kind: string, strip: boolean): BoundedCache<string> {
  const name = `${kind}|${strip ? 1 : 0}`;
  let memo = memos.get(name);
  if (!memo) memos.set(name, (memo = registerCache(new BoundedCache<string>(16 * 1024 * 1024))));
  return memo;
}

function commandOf(result: ToolResult, ctx: StrategyContext): string | undefined {
  const args = result.call?.args;
  if (!args) return undefined;
  for (const name of ctx.bundle.commandArgs) {
    const text = commandText(args[name]);
    if (text !== undefined) return text;
  }
  return undefined;
}

export const toolResultTrimming: Strategy = {
  name: 'tool_result_trimming',
  run(conversation, ctx) {
    let any = false;
    for (const result of conversation.results) {
      if (!open(result) || result.text.length < 40 || isPlaceholder(result.text)) continue;
      const tool = result.call ? toolKind(ctx.bundle, result.call.name) : 'other';
      const kind = outputKind(tool, tool === 'shell' ? commandOf(result, ctx) : undefined);
      const memo = memoFor(kind, ctx.stripLineNumbers);
      const key = result.text;
      let trimmed = memo.get(key);
      if (trimmed === undefined) {
        trimmed = trimOutput(result.text, kind, { stripLineNumbers: ctx.stripLineNumbers });
        // Never trade a result for a longer one.
        if (trimmed.length >= result.text.length) trimmed = result.text;
        memo.set(key, trimmed, trimmed.length);
      }
      any = replace(result, trimmed, this.name) || any;
    }
    return any;
  },
};
