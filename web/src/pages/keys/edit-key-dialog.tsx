import { useState } from 'preact/hooks';
import { api, type ApiKey, type GatewayTool } from '../../api.js';
import { ErrorBanner, Modal } from '../../components/ui.js';
import { useAction } from '../../components/form.js';
import { KeyFields, draftOf, updateBody, type KeyDraft } from './key-fields.js';
import { accessOf, patchFor, type KeyToolAccess } from './tool-access.js';

/**
 * Edits one key: its limits and options (POST …/api_keys/{id}, only what changed) and which
 * gateway tools it may use or gets injected (POST …/gateway_tools/{toolId} for each tool whose
 * access changed; see tool-access.ts for how a per-key choice becomes an organization setting).
 */
export function EditKeyDialog({
  base,
  apiKey,
  tools,
  allKeyIds,
  onSaved,
  onClose,
}: {
  base: string;
  apiKey: ApiKey;
  tools: GatewayTool[] | undefined;
  allKeyIds: string[];
  onSaved: () => void;
  onClose: () => void;
}) {
  const [draft, setDraft] = useState<KeyDraft>(() => draftOf(apiKey));
  const [access, setAccess] = useState<Record<string, KeyToolAccess>>(() =>
    Object.fromEntries((tools ?? []).map((tool) => [tool.id, accessOf(tool, apiKey.id)])),
  );
  const save = useAction();
  const set = (patch: Partial<KeyDraft>) => setDraft((current) => ({ ...current, ...patch }));
  const setTool = (id: string, patch: Partial<KeyToolAccess>) =>
    setAccess((current) => ({ ...current, [id]: { ...current[id]!, ...patch } }));

  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = await save.run(async () => {
      const body = updateBody(apiKey, draft);
      if (Object.keys(body).length > 0) await api('POST', `${base}/api_keys/${apiKey.id}`, body);
      for (const tool of tools ?? []) {
        const patch = patchFor(tool, apiKey.id, access[tool.id]!, allKeyIds);
        if (patch) await api('POST', `${base}/gateway_tools/${encodeURIComponent(tool.id)}`, patch);
      }
    });
    if (saved) {
      onSaved();
      onClose();
    }
  };

  return (
    <Modal
      title={`Edit key "${apiKey.name}"`}
      onClose={onClose}
      wide
      footer={
        <>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            form="edit-key-form"
            class="primary"
            disabled={save.busy || draft.name.trim() === ''}
            data-testid="save-key"
          >
            {save.busy ? 'Saving…' : 'Save'}
          </button>
        </>
      }
    >
      <form id="edit-key-form" class="form-grid" onSubmit={submit} data-testid="edit-key-form">
        <KeyFields draft={draft} set={set} error={save.error} existing={apiKey} />
        <fieldset class="wide" data-testid="key-tools">
          <legend>Gateway tools</legend>
          {!tools && <p class="muted small">Gateway tools are not available on this server.</p>}
          {tools && tools.length === 0 && <p class="muted small">This gateway has no built-in tools.</p>}
          {tools && tools.length > 0 && (
            <table class="compact-table">
              <thead>
                <tr>
                  <th>Tool</th>
                  <th>May use</th>
                  <th>Injected automatically</th>
                </tr>
              </thead>
              <tbody>
                {tools.map((tool) => {
                  const state = access[tool.id]!;
                  return (
                    <tr key={tool.id} data-tool={tool.id}>
                      <td>
                        <code>{tool.id}</code>
                        <div class="muted small">{tool.description}</div>
                      </td>
                      <td>
                        <input
                          type="checkbox"
                          name={`tool-usable-${tool.id}`}
                          aria-label={`${tool.id}: this key may use it`}
                          checked={state.usable}
                          onChange={(e) => setTool(tool.id, { usable: e.currentTarget.checked })}
                        />
                      </td>
                      <td>
                        <input
                          type="checkbox"
                          name={`tool-injected-${tool.id}`}
                          aria-label={`${tool.id}: injected into this key's requests that name no tools`}
                          checked={state.usable && state.injected}
                          disabled={!state.usable}
                          onChange={(e) => setTool(tool.id, { injected: e.currentTarget.checked })}
                        />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          <p class="muted small">
            Tool settings belong to the organization: unticking a key from a tool open to every key lists the other keys
            explicitly. The Gateway tools page shows every key at once.
          </p>
        </fieldset>
        <div class="wide">
          <ErrorBanner error={save.error} />
        </div>
      </form>
    </Modal>
  );
}
