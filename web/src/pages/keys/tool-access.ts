/** The settings of a gateway tool that decide who gets it (a subset of the API's gateway_tool). */
export interface ToolSettings {
  active: boolean;
  active_key_ids: string[] | null;
  hydrate: boolean;
  hydrate_key_ids: string[];
}

/** What one key gets from one gateway tool (the rules of src/gateway-tools/tool-settings.ts). */
export interface KeyToolAccess {
  usable: boolean;
  injected: boolean;
}

export function accessOf(tool: ToolSettings, keyId: string): KeyToolAccess {
  const usable = tool.active && (tool.active_key_ids === null || tool.active_key_ids.includes(keyId));
  return { usable, injected: usable && (tool.hydrate || tool.hydrate_key_ids.includes(keyId)) };
}

export type ToolPatch = Partial<ToolSettings>;

/**
 * The organization-level change that gives one key `wanted` and leaves every other key as it
 * was. Settings are per tool, with "every key" as a special value: taking one key out of
 * "every key" (or of "inject into every request") turns it into the list of the other keys.
 * Returns null when nothing needs to change.
 */
export function patchFor(
  saved: ToolSettings,
  keyId: string,
  wanted: KeyToolAccess,
  allKeyIds: readonly string[],
): ToolPatch | null {
  // Lists may still name deleted keys, which the API refuses: only live keys are sent back.
  const live = (ids: readonly string[]) => ids.filter((id) => allKeyIds.includes(id));
  const tool: ToolSettings = {
    ...saved,
    active_key_ids: saved.active_key_ids === null ? null : live(saved.active_key_ids),
    hydrate_key_ids: live(saved.hydrate_key_ids),
  };
  const current = accessOf(tool, keyId);
  const patch: ToolPatch = {};
  const others = allKeyIds.filter((id) => id !== keyId);

  if (wanted.usable && !current.usable) {
    if (!tool.active) {
      // No key could use an inactive tool: activating it with its old list (or "every key")
      // would give it to them too, so it becomes this key's alone.
      patch.active = true;
      patch.active_key_ids = [keyId];
    } else {
      patch.active_key_ids = [...(tool.active_key_ids ?? []), keyId];
    }
  } else if (!wanted.usable && current.usable) {
    patch.active_key_ids = tool.active_key_ids === null ? others : tool.active_key_ids.filter((id) => id !== keyId);
  }

  // Injection only matters for a key that may use the tool; for one that may not, it is left alone.
  const hydratedNow = tool.hydrate || tool.hydrate_key_ids.includes(keyId);
  if (wanted.usable && wanted.injected && !hydratedNow) {
    patch.hydrate_key_ids = [...tool.hydrate_key_ids, keyId];
  } else if (wanted.usable && !wanted.injected && hydratedNow) {
    if (tool.hydrate) {
      patch.hydrate = false;
      patch.hydrate_key_ids = others;
    } else {
      patch.hydrate_key_ids = tool.hydrate_key_ids.filter((id) => id !== keyId);
    }
  }
  return Object.keys(patch).length === 0 ? null : patch;
}
