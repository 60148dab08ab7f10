/** The listeners one process serves; a deployment can split them across instances. */
export const SURFACE_NAMES = ['gateway', 'console', 'collector'] as const;
export type SurfaceName = (typeof SURFACE_NAMES)[number];

export class SurfaceSettingsError extends Error {}

/**
 * `GATEWAY_SURFACES`, a comma-separated subset of gateway, console, collector (default: all
 * three). A surface that is not served is not even loaded, so a gateway-only instance does not
 * carry the console's routes, API docs, web console or the collector's intake in memory.
 */
export function readSurfaces(env: NodeJS.ProcessEnv): ReadonlySet<SurfaceName> {
  const raw = env.GATEWAY_SURFACES?.trim();
  if (!raw) return new Set(SURFACE_NAMES);
  const chosen = new Set<SurfaceName>();
  for (const part of raw.split(',')) {
    const name = part.trim().toLowerCase();
    if (!name) continue;
    if (!(SURFACE_NAMES as readonly string[]).includes(name))
      throw new SurfaceSettingsError(
        `GATEWAY_SURFACES names an unknown surface "${part.trim()}"; use a comma-separated subset of ${SURFACE_NAMES.join(', ')}`,
      );
    chosen.add(name as SurfaceName);
  }
  if (chosen.size === 0)
    throw new SurfaceSettingsError(`GATEWAY_SURFACES must name at least one of ${SURFACE_NAMES.join(', ')}`);
  return chosen;
}
