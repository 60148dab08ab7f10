import { Stat } from './ui.js';
import { formatCompact, formatDate, formatInt, formatUsd, microToUsd } from '../format.js';
import { agentLabel, formatDuration, type SessionDetail, type SessionRequest } from '../session-types.js';

const money = (micro: number) => formatUsd(microToUsd(micro));

/** A session's totals, its requests on a timeline and in a table: the session page and the shared view. */
export function SessionView({ session }: { session: SessionDetail }) {
  return (
    <>
      <div class="stats" data-testid="session-totals">
        <Stat
          label="Agent"
          value={agentLabel(session)}
          detail={`${session.models.join(', ')} · started ${formatDate(session.started_at)}`}
        />
        <Stat
          label="Duration"
          value={formatDuration(session.duration_ms)}
          detail={`${formatInt(session.requests.length)} requests`}
        />
        <Stat
          label="Spent"
          value={money(session.cost_micro_usd)}
          detail={`${formatCompact(session.input_tokens)} in (${formatCompact(session.cached_input_tokens)} cached, ${formatCompact(session.cache_write_tokens)} written) · ${formatCompact(session.output_tokens)} out`}
        />
        <Stat
          label="Saved"
          value={money(session.savings_micro_usd)}
          detail={`compression ${money(session.compression_savings_micro_usd)} · caching ${money(session.caching_savings_micro_usd)}`}
        />
      </div>
      <Timeline session={session} />
      <RequestsTable requests={session.requests} />
      {session.requests_truncated && (
        <p class="muted small">The session has more requests than the first 5,000 shown.</p>
      )}
    </>
  );
}

/** Each request as a bar from its start (created − latency) to its end, on the session's time axis. */
function Timeline({ session }: { session: SessionDetail }) {
  const start = Date.parse(session.started_at);
  const span = Math.max(1, Date.parse(session.ended_at) - start);
  const at = (ms: number) => `${(((ms - start) / span) * 100).toFixed(3)}%`;
  return (
    <div class="card">
      <h2>Timeline</h2>
      <div class="timeline" data-testid="session-timeline" role="img" aria-label="Requests over the session's time">
        {session.requests.map((request, i) => {
          const end = Date.parse(request.created_at);
          const begin = end - request.latency_ms;
          return (
            <a
              key={request.id}
              href={`#request-${i + 1}`}
              class={`timeline-bar ${request.status_code < 400 ? 'ok' : 'bad'}`}
              style={{ left: at(begin), width: `max(3px, calc(${at(end)} - ${at(begin)}))`, top: `${(i % 4) * 9}px` }}
              title={`#${i + 1} ${request.model}: ${request.status_code}, ${formatInt(request.latency_ms)} ms, ${money(request.cost_micro_usd)}`}
              data-testid="timeline-bar"
            />
          );
        })}
      </div>
      <div class="timeline-axis muted small">
        <span>{formatDate(session.started_at)}</span>
        <span>{formatDate(session.ended_at)}</span>
      </div>
    </div>
  );
}

function RequestsTable({ requests }: { requests: SessionRequest[] }) {
  return (
    <div class="table-wrap">
      <table data-testid="session-requests" class="sessions-table">
        <thead>
          <tr>
            <th>#</th>
            <th>Time</th>
            <th>Model</th>
            <th class="num">Input</th>
            <th class="num">Cached</th>
            <th class="num">Written</th>
            <th class="num">Output</th>
            <th class="num">Cost</th>
            <th class="num">Saved</th>
            <th class="num">Latency</th>
            <th>Status</th>
            <th>Compression</th>
          </tr>
        </thead>
        <tbody>
          {requests.map((request, i) => (
            <tr key={request.id} id={`request-${i + 1}`} data-testid="session-request">
              <td class="num">{i + 1}</td>
              <td>{new Date(request.created_at).toISOString().slice(11, 19)}</td>
              <td>{request.model}</td>
              <td class="num">{formatInt(request.input_tokens)}</td>
              <td class="num">{formatInt(request.cached_input_tokens)}</td>
              <td class="num">{formatInt(request.cache_write_tokens)}</td>
              <td class="num">{formatInt(request.output_tokens)}</td>
              <td class="num mono">{money(request.cost_micro_usd)}</td>
              <td
                class="num mono"
                title={`compression ${money(request.compression_savings_micro_usd)}, caching ${money(request.caching_savings_micro_usd)}`}
              >
                {money(request.savings_micro_usd)}
              </td>
              <td class="num">{formatInt(request.latency_ms)} ms</td>
              <td>
                <span class={`badge ${request.status_code < 400 ? 'ok' : 'bad'}`}>{request.status_code}</span>
                {request.error_code && <span class="mono small"> {request.error_code}</span>}
              </td>
              <td class="small wrap" data-testid="strategies">
                {request.compression_strategies.length === 0 ? '—' : request.compression_strategies.join(', ')}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
