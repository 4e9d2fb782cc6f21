/**
 * The asset ledger: every output with a thumbnail (full size on click), filters, approval for the
 * release freeze — one, by keyboard, or many — and CSV exports. The grid holds still: outputs that
 * arrive meanwhile wait behind "12 new outputs — show".
 */
import { useMemo, useState } from 'react';
import { Empty } from '../../components/Empty.js';
import { counted } from '../../lib/bulk-confirm.js';
import { AssetGrid } from './AssetGrid.js';
import { ExportPanel } from './ExportPanel.js';
import { useMay } from '../../store/use-may.js';
import { Lightbox } from './Lightbox.js';
import { useApproval } from './use-approval.js';
import { useLedgerPage, type LedgerFilter } from './use-ledger-page.js';

const PAGE = 60;

export function LedgerView() {
  const { may, why } = useMay();
  const [filter, setFilter] = useState({ project: '', episode: '', shot: '', search: '' });
  const [limit, setLimit] = useState(PAGE);
  const [version, setVersion] = useState(0);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [viewing, setViewing] = useState<number | null>(null);
  const clean: LedgerFilter = useMemo(
    () =>
      Object.fromEntries(
        Object.entries(filter)
          .filter(([, v]) => v.trim() !== '')
          .map(([k, v]) => [k, v.trim()]),
      ),
    [filter],
  );
  const q = useLedgerPage(clean, limit, version);
  const rows = useMemo(() => q.data?.rows ?? [], [q.data]);
  const approval = useApproval(q.data?.rows, () => setVersion((v) => v + 1));
  const picked = rows.filter((r) => selected.has(r.id));

  const field = (key: keyof typeof filter, label: string) => (
    <label className="field field-inline">
      <span className="field-label">{label}</span>
      <input
        className="input"
        value={filter[key]}
        placeholder="all"
        onChange={(e) => (setFilter({ ...filter, [key]: e.target.value }), setLimit(PAGE), setSelected(new Set()))}
        data-ledger-filter={key}
      />
    </label>
  );
  return (
    <section className="view view-ledger">
      <div className="view-head">
        <div>
          <h1>Ledger</h1>
          <div className="muted">
            {q.data ? `${counted(q.data.total, 'output file')}, hashed, with where and how they were made` : 'Loading…'}
          </div>
        </div>
      </div>
      <div className="filters">
        {field('search', 'Search')}
        {field('project', 'Project')}
        {field('episode', 'Episode')}
        {field('shot', 'Shot')}
      </div>
      <div className="ledger-layout">
        <div className="ledger-main">
          {/* Always there, one line high: what appears in it never moves the grid below. */}
          <div className={`actionbar ledger-bar${picked.length ? '' : ' actionbar-idle'}`} data-testid="ledger-bulk">
            {picked.length > 0 ? (
              <>
                <span className="selcount">{counted(picked.length, 'output')} selected</span>
                <button
                  type="button"
                  className="btn btn-sm btn-primary"
                  onClick={() => approval.set(picked, true)}
                  disabled={!may('approvals')}
                  title={why('approvals')}
                  data-action="approve-selected"
                  data-needs="approvals"
                >
                  Approve
                </button>
                <button
                  type="button"
                  className="btn btn-sm"
                  onClick={() => approval.set(picked, false)}
                  disabled={!may('approvals')}
                  title={why('approvals')}
                  data-action="unapprove-selected"
                  data-needs="approvals"
                >
                  Unapprove
                </button>
                <button type="button" className="btn btn-sm btn-ghost" onClick={() => setSelected(new Set())}>
                  Clear
                </button>
              </>
            ) : (
              <span className="muted small truncate">
                Arrows move · Space approves · Enter full size · X or Ctrl+click selects · A / U approve / unapprove the
                selection
              </span>
            )}
            <span className="spacer" />
            {q.newer > 0 && (
              <button
                type="button"
                className="new-outputs"
                onClick={() => (q.showNewer(), setSelected(new Set()))}
                data-testid="new-outputs"
                data-newer={q.newer}
              >
                {counted(q.newer, 'new output')} — show
              </button>
            )}
          </div>
          {q.error && (
            <Empty title="Could not load the ledger" tone="error">
              {q.error}
            </Empty>
          )}
          {q.data && rows.length === 0 && (
            <Empty title="No outputs yet">Finished renders appear here with their hash, size and settings.</Empty>
          )}
          <AssetGrid
            rows={rows}
            approval={approval}
            selection={{ ids: selected, set: setSelected }}
            onOpen={setViewing}
          />
          {q.data && q.data.total > rows.length && (
            <button type="button" className="btn btn-ghost more" onClick={() => setLimit(limit + PAGE)}>
              Show more ({(q.data.total - rows.length).toLocaleString()} left)
            </button>
          )}
        </div>
        {may('exports') && <ExportPanel />}
      </div>
      {viewing !== null && (
        <Lightbox
          assets={rows}
          index={viewing}
          approved={approval.shown}
          onIndex={setViewing}
          onClose={() => setViewing(null)}
          onApprove={(a) => approval.set([a], !approval.shown(a))}
        />
      )}
      {approval.confirmDialog}
    </section>
  );
}
