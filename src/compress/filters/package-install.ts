// pip, npm, apt, cargo fetch…: "already satisfied" and download chatter is counted, not kept.
import { isErrorLine } from './error-lines.js';
import { removedRoutine } from './markers.js';

const ROUTINE: [string, RegExp][] = [
  ['Requirement already satisfied', /^Requirement already satisfied: /],
  ['Collecting', /^\s*Collecting \S/],
  ['Downloading', /^\s*(?:Downloading|Downloaded|Using cached|Obtaining dependency information) /],
  [
    'pip build step',
    /^\s*(?:Installing build dependencies|Checking if build backend|Getting requirements to build|Preparing (?:editable )?metadata|Building (?:editable )?(?:wheel|for)|Created wheel|Stored in directory|Attempting uninstall|Found existing installation|Uninstalling|Successfully uninstalled)\b/,
  ],
  ['npm notice', /^npm (?:notice|http fetch|timing|sill|verb)\b/],
  ['npm deprecation warning', /^npm WARN deprecated /],
  [
    'apt progress',
    /^(?:Get:\d+|Hit:\d+|Ign:\d+|Reading package lists|Building dependency tree|Reading state information|Selecting previously unselected|Preparing to unpack|Unpacking|Setting up|Processing triggers|\(Reading database)/,
  ],
  ['cargo fetch', /^\s*(?:Downloaded|Downloading|Updating|Locking|Adding|Compiling|Fresh)\s+\S/],
];

export function filterInstallOutput(text: string): string {
  const lines = text.split('\n');
  const counts = new Map<string, number>();
  const out: string[] = [];
  let at = -1;
  for (const line of lines) {
    const hit = isErrorLine(line) ? undefined : ROUTINE.find(([, re]) => re.test(line));
    if (!hit) out.push(line);
    else {
      counts.set(hit[0], (counts.get(hit[0]) ?? 0) + 1);
      if (at < 0) at = out.length;
    }
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  if (total < 2) return text;
  const detail = [...counts].map(([what, count]) => `${count} "${what}"`).join(', ');
  // The count sits where the chatter was, so a trailing status footer stays last.
  out.splice(at, 0, removedRoutine(`${total} routine install lines: ${detail}`));
  return out.join('\n');
}
