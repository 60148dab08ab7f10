import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { ErrorBanner, Loading, useLoad } from '../../components/ui.js';
import { formatDate, formatInt } from '../../format.js';
import type { CaptureDetail, CaptureDiff, CapturePart, DiffLine } from './capture-types.js';

const TABS = [
  ['diff', 'What changed'],
  ['received', 'Received'],
  ['upstream', 'Sent upstream'],
  ['answer', 'Answer'],
] as const;
type Tab = (typeof TABS)[number][0];

/** A body as stored: pretty-printed when it is whole JSON, with the truncation note when it was cut. */
function Body({ part }: { part: CapturePart }) {
  let text = part.text;
  try {
    text = JSON.stringify(JSON.parse(part.text), null, 2);
  } catch {
    // cut at the cap, or a stream's events: shown as stored
  }
  return (
    <>
      {part.truncated_from_bytes !== undefined && (
        <p class="muted small">Cut at the capture's size cap: {formatInt(part.truncated_from_bytes)} bytes in all.</p>
      )}
      <pre class="json capture-body">{text}</pre>
    </>
  );
}

function Headers({ headers }: { headers: Record<string, string> }) {
  return (
    <table class="small">
      <tbody>
        {Object.entries(headers).map(([name, value]) => (
          <tr key={name}>
            <td class="mono nowrap">{name}</td>
            <td class="mono">{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Lines({ lines }: { lines: DiffLine[] }) {
  return (
    <pre class="json diff-lines" data-testid="diff-lines">
      {lines.map((line, i) =>
        line.op === 'skip' ? (
          <div key={i} class="diff-skip">
            … {formatInt(line.count)} unchanged lines
          </div>
        ) : (
          <div key={i} class={`diff-${line.op}`}>
            {line.op === 'added' ? '+ ' : line.op === 'removed' ? '- ' : '  '}
            {line.text}
          </div>
        ),
      )}
    </pre>
  );
}

function DiffView({ diff }: { diff: CaptureDiff }) {
  const [showUnchanged, setShowUnchanged] = useState(false);
  if (!diff.comparable) return <p class="muted">{diff.reason}</p>;
  const { summary } = diff;
  const items = showUnchanged ? diff.items : diff.items.filter((item) => item.status !== 'unchanged');
  return (
    <div data-testid="capture-diff">
      <p>
        {formatInt(summary.changed)} of {formatInt(diff.items.length)} {diff.item_list ?? 'items'} changed
        {summary.added + summary.removed > 0 && `, ${summary.added} added, ${summary.removed} removed`}:{' '}
        {formatInt(summary.received_chars)} → {formatInt(summary.sent_chars)} characters.
      </p>
      <label class="check">
        <input type="checkbox" checked={showUnchanged} onChange={(e) => setShowUnchanged(e.currentTarget.checked)} />{' '}
        Show unchanged items
      </label>
      {items.map((item) => (
        <details key={item.index} open={item.status === 'changed'} class="diff-item">
          <summary>
            #{item.index} {item.role ?? ''}{' '}
            <span class={`badge ${item.status === 'unchanged' ? 'off' : 'warn'}`}>{item.status}</span>{' '}
            <span class="muted small">
              {formatInt(item.received_chars)} → {formatInt(item.sent_chars)} characters
            </span>
          </summary>
          {item.lines && <Lines lines={item.lines} />}
        </details>
      ))}
      <h4>Other members</h4>
      {diff.other_members.some((line) => line.op === 'added' || line.op === 'removed') ? (
        <Lines lines={diff.other_members} />
      ) : (
        <p class="muted small">Unchanged (model, tools, options).</p>
      )}
    </div>
  );
}

/** One capture: the diff of what compression changed, the bodies as received and sent, the answer. */
export function CaptureView({ base, id, onClose }: { base: string; id: string; onClose: () => void }) {
  const [tab, setTab] = useState<Tab>('diff');
  const detail = useLoad(() => api<CaptureDetail>('GET', `${base}/debug_captures/${encodeURIComponent(id)}`), [id]);
  const diff = useLoad(() => api<CaptureDiff>('GET', `${base}/debug_captures/${encodeURIComponent(id)}/diff`), [id]);
  const capture = detail.data;
  return (
    <section class="card" data-testid="capture-view">
      <header class="page-header">
        <div>
          <h2>Capture {capture ? `of ${formatDate(capture.created_at)}` : ''}</h2>
          {capture && (
            <p class="muted small mono">
              {capture.endpoint} · {capture.model ?? 'no model'} · status {capture.status_code} · request{' '}
              {capture.request_id}
            </p>
          )}
        </div>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </header>
      <nav class="controls" aria-label="Capture parts">
        {TABS.map(([name, label]) => (
          <button key={name} type="button" class={tab === name ? 'primary' : ''} onClick={() => setTab(name)}>
            {label}
          </button>
        ))}
      </nav>
      <ErrorBanner error={detail.error ?? diff.error} />
      {(detail.loading || diff.loading) && <Loading what="the capture" />}
      {tab === 'diff' && diff.data && <DiffView diff={diff.data} />}
      {tab === 'received' && capture && (
        <>
          <Headers headers={capture.received.headers} />
          <Body part={capture.received.body} />
        </>
      )}
      {tab === 'upstream' && capture && (
        <>
          {capture.upstream.attempts.length === 0 && <p class="muted">Nothing was sent upstream.</p>}
          {capture.upstream.attempts.map((attempt, i) => (
            <div key={i}>
              <h4>
                Attempt {i + 1}: {attempt.provider} / {attempt.upstream_model}{' '}
                <span class="muted small">{formatDate(attempt.started_at)}</span>
              </h4>
              <p class="mono small">{attempt.url}</p>
              <Headers headers={attempt.headers} />
              <Body part={attempt.body} />
            </div>
          ))}
          {capture.upstream.attempts_not_kept > 0 && (
            <p class="muted small">{capture.upstream.attempts_not_kept} later attempts were not kept.</p>
          )}
        </>
      )}
      {tab === 'answer' && capture && (
        <>
          <p class="small">
            {capture.answer.kind === 'stream'
              ? 'Streamed events'
              : capture.answer.kind === 'json'
                ? 'JSON body'
                : 'No body'}{' '}
            · status {capture.answer.status_code}
            {capture.answer.error_code && <span class="mono"> {capture.answer.error_code}</span>}
          </p>
          <Body part={capture.answer.body} />
        </>
      )}
    </section>
  );
}
