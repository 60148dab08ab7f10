import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

export interface Observation {
  source: string;
  command: string;
  output: string;
}

/** Real observations from the SWE-agent trajectories (shared/datasets, MIT). */
export const observations = JSON.parse(readFileSync(join(dir, 'swe-agent-observations.json'), 'utf8')) as Record<
  'pip_install' | 'curl_progress' | 'file_view' | 'find_file' | 'python_traceback' | 'ls',
  Observation
>;

export const fixtureText = (name: string) => readFileSync(join(dir, name), 'utf8');

export const marshmallowChat = JSON.parse(
  readFileSync(join(dir, 'marshmallow-function-calling.chat.json'), 'utf8'),
) as {
  messages: Record<string, unknown>[];
};
