import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';

/** The request member an API error blames (`param`), if any. */
export function errorParam(error: unknown): string | null {
  return error instanceof ApiError ? error.param : null;
}

/** Whether `error` blames `param` or one of its members (`settings` matches `settings.url`). */
export function blames(error: unknown, param: string): boolean {
  const blamed = errorParam(error);
  return blamed !== null && (blamed === param || blamed.startsWith(`${param}.`) || blamed.startsWith(`${param}[`));
}

/** The server's message under the field it names; screen readers hear it when it appears. */
export function FieldError({ error, param, exact = false }: { error: unknown; param: string; exact?: boolean }) {
  const blamed = errorParam(error);
  if (!blamed || !(exact ? blamed === param : blames(error, param))) return null;
  return (
    <span class="field-error" role="alert" data-testid="field-error" data-param={blamed}>
      {(error as Error).message}
    </span>
  );
}

/** Runs one write at a time: `busy` while it runs, `error` when it failed (cleared on the next run). */
export function useAction(): {
  busy: boolean;
  error: unknown;
  setError: (error: unknown) => void;
  run: (action: () => Promise<void>) => Promise<boolean>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

/** "a, b\nc" → ["a", "b", "c"]: lists typed into one field. */
export function splitList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);
}
