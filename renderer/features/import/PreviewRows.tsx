/**
 * The import preview's rows, a page at a time: the preview answer carries the counts and the first
 * page (errors first, then in file order); further pages come from import.previewRows as the
 * operator turns them, so a 100,000-row list never crosses to the browser whole.
 */
import { useState } from 'react';
import type { ImportPreview, ImportRowView } from '../../../shared/domain.js';
import { errorMessage } from '../../client/client.js';
import { useApp } from '../../store/app-store.js';

/** Rows per page: what the preview asks for first, and what each page fetch asks for. */
export const PAGE_ROWS = 200;

function RowLine({ r }: { r: ImportRowView }) {
  return (
    <tr className={`status-${r.status}`} data-row-status={r.status} data-shot={r.shot}>
      <td className="num muted">
        {r.row}
        {r.line !== null && <span className="small"> · L{r.line}</span>}
      </td>
      <td>
        <b>{r.shot || '—'}</b>{' '}
        <span className="muted small">
          {r.project}/{r.episode}
        </span>
      </td>
      <td>{r.stage}</td>
      <td className="num">{r.take}</td>
      <td>{r.template}</td>
      <td>
        <span className={`prio prio-${r.priority}`}>{r.priority}</span>
      </td>
      <td>
        <span className={`pill import-${r.status}`}>
          {r.status === 'new' ? 'New' : r.status === 'duplicate' ? 'Already queued' : 'Error'}
        </span>
      </td>
      <td className="problems">
        {r.errors.map((e, i) => (
          <div key={`e${i}`} className="err">
            {e}
          </div>
        ))}
        {r.warnings.map((w, i) => (
          <div key={`w${i}`} className="warn">
            {w}
          </div>
        ))}
      </td>
    </tr>
  );
}

export function PreviewRows({ preview }: { preview: ImportPreview }) {
  const client = useApp((s) => s.client);
  const total = preview.totalRows;
  const [page, setPage] = useState<{ offset: number; rows: ImportRowView[] }>({ offset: 0, rows: preview.rows });
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const turn = async (offset: number) => {
    setLoading(true);
    try {
      const p = await client.call('import.previewRows', { previewId: preview.previewId, offset, limit: PAGE_ROWS });
      setPage({ offset: p.offset, rows: p.rows });
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setLoading(false);
    }
  };

  const from = page.offset;
  const to = from + page.rows.length;
  const pager = total > page.rows.length && (
    <div className="preview-pager" data-testid="preview-pager">
      <button
        type="button"
        className="btn btn-ghost btn-sm"
        disabled={loading || from === 0}
        onClick={() => void turn(Math.max(0, from - PAGE_ROWS))}
        data-testid="preview-prev"
      >
        ‹ Previous
      </button>
      <span className="muted small" data-testid="preview-range">
        Rows {(from + 1).toLocaleString()}–{to.toLocaleString()} of {total.toLocaleString()}
        {preview.counts.error > 0 ? ' (errors first)' : ''}
      </span>
      <button
        type="button"
        className="btn btn-ghost btn-sm"
        disabled={loading || to >= total}
        onClick={() => void turn(to)}
        data-testid="preview-next"
      >
        Next ›
      </button>
    </div>
  );
  return (
    <>
      {pager}
      {error && (
        <div className="alert alert-error" role="alert">
          {error}
        </div>
      )}
      <div className="preview-rows">
        <table className="grid-table" data-testid="preview-rows">
          <thead>
            <tr>
              <th>Row</th>
              <th>Shot</th>
              <th>Stage</th>
              <th>Take</th>
              <th>Template</th>
              <th>Priority</th>
              <th>Status</th>
              <th>Problems</th>
            </tr>
          </thead>
          <tbody>
            {page.rows.map((r) => (
              <RowLine key={`${r.row}-${r.stage}`} r={r} />
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
