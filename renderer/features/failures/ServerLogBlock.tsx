/**
 * A failed attempt's lines from its ComfyUI's own log (`/internal/logs/raw`), collapsed under a
 * summary that says how many; or the words for a server that does not offer its log or did not
 * answer. The value crossed a process boundary: it is parsed with the shared contract first.
 */
import type { SyntheticEvent } from 'react';
import { parseServerLog } from '../../../shared/server-log.js';
import { clock } from '../../lib/format.js';

/** Opened, the block shows its end: the failure is the last thing the server logged in the window. */
function toEnd(e: SyntheticEvent<HTMLDetailsElement>): void {
  const lines = e.currentTarget.querySelector('pre');
  if (e.currentTarget.open && lines) lines.scrollTop = lines.scrollHeight;
}

export function ServerLogBlock({ value }: { value: unknown }) {
  if (value === null || value === undefined) return null;
  const log = parseServerLog(value);
  if (!log)
    return (
      <div className="muted small" data-testid="attempt-server-log-note">
        Server log: stored in a shape this version cannot read.
      </div>
    );
  if (log.kind === 'not_offered')
    return (
      <div className="muted small" data-testid="attempt-server-log-note">
        Server log: this ComfyUI does not offer its log — {log.detail}.
      </div>
    );
  if (log.kind === 'unread')
    return (
      <div className="muted small" data-testid="attempt-server-log-note">
        Server log: not read — {log.detail}.
      </div>
    );
  if (log.lines.length === 0)
    return (
      <div className="muted small" data-testid="attempt-server-log-note">
        Server log: no lines from {clock(log.from)}–{clock(log.to)} were left in the server's buffer (it keeps its last
        300 writes).
      </div>
    );
  const n = log.lines.length;
  return (
    <details className="server-log" data-testid="attempt-server-log" onToggle={toEnd}>
      <summary className="small">
        Server log ({n} line{n === 1 ? '' : 's'} around the failure
        {log.cut > 0 ? `; ${log.cut} older left out` : ''})
      </summary>
      <pre className="error-text server-log-lines" data-testid="attempt-server-log-lines">
        {/* The lines never reorder and two may be identical: their place is their key. */}
        {log.lines.map((l, i) => (
          <span key={i} className="server-log-line">
            <span className="muted">{clock(l.at)} </span>
            {l.text}
            {'\n'}
          </span>
        ))}
      </pre>
    </details>
  );
}
