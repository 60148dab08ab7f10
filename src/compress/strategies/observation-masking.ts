// Old observations are the bulk of an agent's input and are rarely looked at again (masking
// them halves SWE-agent cost at equal solve rate, arXiv 2508.21433). The boundary moves in
// steps (see window.ts) so the masked prefix stays byte-stable between steps.
import { isPlaceholder, masked } from '../filters/markers.js';
import { open, replace, type Strategy } from './strategy.js';

// Short outputs ("File updated.", exit codes) cost less than the placeholder and orient the model.
const MIN_SAVING = 200;

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export const observationMasking: Strategy = {
  name: 'observation_masking',
  run(conversation, ctx) {
    let any = false;
    for (const r of conversation.results) {
      if (r.turn >= ctx.frozenBefore || !open(r) || isPlaceholder(r.text)) continue;
      const lines = countLines(r.original);
      const placeholder = masked(lines, r.original.length);
      if (r.text.length - placeholder.length < MIN_SAVING) continue;
      any = replace(r, placeholder, this.name) || any;
    }
    return any;
  },
};
