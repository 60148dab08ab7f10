/**
 * An integer setting from the environment: `fallback` when unset or empty, else it must lie in
 * [min, max]; anything else stops the start with the variable's name and value.
 */
export function boundedInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}
