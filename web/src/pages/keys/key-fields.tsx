import type { ApiKey } from '../../api.js';
import { FieldError, splitList } from '../../components/form.js';
import { formatDate } from '../../format.js';

export const ASSISTANTS = [
  ['claude_code', 'Claude Code'],
  ['codex', 'Codex'],
  ['opencode', 'opencode'],
] as const;

/** A key's settings as typed into the form (numbers stay text until sent). */
export interface KeyDraft {
  name: string;
  type: 'api' | 'coding_agent';
  assistant: string;
  models: string;
  ceiling: string;
  /** keep: leave the expiry as it is (edit only); never: no expiry; days: `days` from now. */
  expiry: 'keep' | 'never' | 'days';
  days: string;
  active: boolean;
  debugMode: boolean;
  compression: boolean;
  cacheBreakpoints: boolean;
  toolSurface: boolean;
  outputBrevity: boolean;
}

export const NEW_KEY: KeyDraft = {
  name: '',
  type: 'api',
  assistant: 'claude_code',
  models: '',
  ceiling: '',
  expiry: 'never',
  days: '30',
  active: true,
  debugMode: false,
  compression: false,
  cacheBreakpoints: true,
  toolSurface: true,
  outputBrevity: false,
};

export function draftOf(key: ApiKey): KeyDraft {
  return {
    name: key.name,
    type: key.type,
    assistant: key.coding_assistant ?? 'claude_code',
    models: key.models.join(', '),
    ceiling: key.max_usage === null ? '' : String(key.max_usage),
    expiry: 'keep',
    days: '30',
    active: key.active,
    debugMode: key.debug_mode,
    compression: key.compression,
    cacheBreakpoints: key.cache_breakpoints,
    toolSurface: key.tool_surface,
    outputBrevity: key.output_brevity,
  };
}

const ceilingOf = (draft: KeyDraft) => (draft.ceiling.trim() === '' ? null : Number(draft.ceiling));

/** The create body (spec 2.8). */
export function createBody(draft: KeyDraft): Record<string, unknown> {
  const body: Record<string, unknown> = { name: draft.name.trim(), type: draft.type };
  if (draft.type === 'coding_agent') body.coding_assistant = draft.assistant;
  const models = splitList(draft.models);
  if (models.length > 0) body.models = models;
  if (ceilingOf(draft) !== null) body.max_usage = ceilingOf(draft);
  if (draft.expiry === 'days') body.expires_in_days = Number(draft.days);
  if (draft.debugMode) body.debug_mode = true;
  if (draft.compression) body.compression = true;
  if (!draft.cacheBreakpoints) body.cache_breakpoints = false;
  if (!draft.toolSurface) body.tool_surface = false;
  if (draft.outputBrevity) body.output_brevity = true;
  return body;
}

/** The update body: only what changed, so an update never rewrites a setting by accident. */
export function updateBody(key: ApiKey, draft: KeyDraft): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (draft.name.trim() !== key.name) body.name = draft.name.trim();
  if (draft.type !== key.type) body.type = draft.type;
  const assistant = draft.type === 'coding_agent' ? draft.assistant : null;
  if (draft.type === 'coding_agent' && assistant !== key.coding_assistant) body.coding_assistant = assistant;
  const models = splitList(draft.models);
  if (models.join('\n') !== key.models.join('\n')) body.models = models;
  if (ceilingOf(draft) !== key.max_usage) body.max_usage = ceilingOf(draft);
  if (draft.expiry === 'never' && key.expires_at !== null) body.expires_in_days = null;
  if (draft.expiry === 'days') body.expires_in_days = Number(draft.days);
  if (draft.active !== key.active) body.active = draft.active;
  if (draft.debugMode !== key.debug_mode) body.debug_mode = draft.debugMode;
  if (draft.compression !== key.compression) body.compression = draft.compression;
  if (draft.cacheBreakpoints !== key.cache_breakpoints) body.cache_breakpoints = draft.cacheBreakpoints;
  if (draft.toolSurface !== key.tool_surface) body.tool_surface = draft.toolSurface;
  if (draft.outputBrevity !== key.output_brevity) body.output_brevity = draft.outputBrevity;
  return body;
}

/** The fields of a key, for the create form and the edit dialog alike. */
export function KeyFields({
  draft,
  set,
  error,
  existing,
}: {
  draft: KeyDraft;
  set: (patch: Partial<KeyDraft>) => void;
  error: unknown;
  existing?: ApiKey;
}) {
  return (
    <>
      <label>
        Name
        <input
          name="name"
          required
          maxLength={200}
          value={draft.name}
          onInput={(e) => set({ name: e.currentTarget.value })}
          placeholder="e.g. backend production"
          data-autofocus
        />
        <FieldError error={error} param="name" />
      </label>
      <label>
        Type
        <select
          name="type"
          value={draft.type}
          onChange={(e) => set({ type: e.currentTarget.value as KeyDraft['type'] })}
        >
          <option value="api">API</option>
          <option value="coding_agent">Coding agent</option>
        </select>
        <FieldError error={error} param="type" />
      </label>
      {draft.type === 'coding_agent' && (
        <label>
          Coding assistant
          <select
            name="coding_assistant"
            value={draft.assistant}
            onChange={(e) => set({ assistant: e.currentTarget.value })}
          >
            {ASSISTANTS.map(([value, label]) => (
              <option value={value}>{label}</option>
            ))}
          </select>
          <FieldError error={error} param="coding_assistant" />
        </label>
      )}
      <label class="wide">
        Models{' '}
        <span class="muted">
          (optional: ids such as openai/gpt-4o-mini, separated by commas; empty allows every model)
        </span>
        <input
          name="models"
          value={draft.models}
          onInput={(e) => set({ models: e.currentTarget.value })}
          placeholder="all models"
        />
        <FieldError error={error} param="models" />
      </label>
      <label>
        Monthly ceiling, USD <span class="muted">(optional)</span>
        <input
          name="max_usage"
          type="number"
          min={0}
          step={1}
          value={draft.ceiling}
          onInput={(e) => set({ ceiling: e.currentTarget.value })}
          placeholder="no ceiling"
        />
        <FieldError error={error} param="max_usage" />
      </label>
      <fieldset class="inline-fieldset">
        <legend>Expiry</legend>
        <select
          name="expiry"
          aria-label="Expiry"
          value={draft.expiry}
          onChange={(e) => set({ expiry: e.currentTarget.value as KeyDraft['expiry'] })}
        >
          {existing && (
            <option value="keep">
              Keep ({existing.expires_at ? `expires ${formatDate(existing.expires_at, false)}` : 'never expires'})
            </option>
          )}
          <option value="never">Never expires</option>
          <option value="days">Expires in…</option>
        </select>
        {draft.expiry === 'days' && (
          <label class="compact">
            Days from now
            <input
              name="expires_in_days"
              type="number"
              min={1}
              max={3650}
              step={1}
              required
              value={draft.days}
              onInput={(e) => set({ days: e.currentTarget.value })}
            />
          </label>
        )}
        <FieldError error={error} param="expires_in_days" />
      </fieldset>
      <fieldset class="wide checks">
        <legend>Options</legend>
        {KEY_OPTIONS.filter((option) => existing || option.field !== 'active').map((option) => (
          <label class="check" key={option.name}>
            <input
              type="checkbox"
              name={option.name}
              checked={draft[option.field]}
              onChange={(e) => set({ [option.field]: e.currentTarget.checked })}
            />
            {option.label} <span class="muted">({option.hint})</span>
          </label>
        ))}
      </fieldset>
    </>
  );
}

type KeyOption = keyof {
  [F in keyof KeyDraft as KeyDraft[F] extends boolean ? F : never]: true;
};

/** The key's on/off options as the form lists them: field, API name, and what each does. `active` only when editing. */
const KEY_OPTIONS: readonly { field: KeyOption; name: string; label: string; hint: string }[] = [
  { field: 'active', name: 'active', label: 'Active', hint: 'an inactive key is refused with 403' },
  { field: 'debugMode', name: 'debug_mode', label: 'Debug mode', hint: "responses carry the gateway's debug details" },
  {
    field: 'compression',
    name: 'compression',
    label: 'Compression',
    hint: 'compress prompts before they reach the provider',
  },
  {
    field: 'cacheBreakpoints',
    name: 'cache_breakpoints',
    label: 'Prompt-cache hints',
    hint: 'the gateway places Anthropic cache breakpoints and an OpenAI prompt_cache_key',
  },
  {
    field: 'toolSurface',
    name: 'tool_surface',
    label: 'Tool surface',
    hint: "drops tool groups the key's conversations never use, decided once per conversation",
  },
  {
    field: 'outputBrevity',
    name: 'output_brevity',
    label: 'Output brevity',
    hint: 'asks the model to answer without filler: fewer output tokens',
  },
];
