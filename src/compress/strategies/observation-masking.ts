// Old observations are the bulk of an agent's input and are rarely looked at again (masking
// them halves SWE-agent cost at equal solve rate, arXiv 2508.21433). The boundary moves in
// steps (see window.ts) so the masked prefix stays byte-stable between steps.
import { BoundedCache, registerCache } from '../cache.js';
import { isPlaceholder, masked } from '../filters/markers.js';
import { open, replace, type Strategy } from './strategy.js';

// Short outputs ("File updated.", exit codes) cost less than the placeholder and orient the model.
const MIN_SAVING = 200;

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

// Every request re-sends every masked result; its placeholder is built once.
const placeholders = registerCache(new BoundedCache<string>(4 * 1024 * 1024));
const placeholderFor = (original: string) => masked(countLines(original), original.length);

export const observationMasking: Strategy = {
  name: 'observation_masking',
  run(conversation, ctx) {
    let any = false;
    for (const r of conversation.results) {
      if (r.turn >= ctx.frozenBefore || !open(r) || isPlaceholder(r.text)) continue;
      const placeholder = placeholders.getOrCompute(r.original, placeholderFor, (p) => p.length);
      if (r.text.length - placeholder.length < MIN_SAVING) continue;
      any = replace(r, placeholder, this.name) || any;
    }
    return any;
  },
};
