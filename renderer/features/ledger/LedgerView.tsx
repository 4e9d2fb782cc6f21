/** The asset ledger: every output with a thumbnail, filters, approval for the release freeze, CSV exports. */
import { useState } from 'react';
import type { AssetView } from '../../../shared/domain.js';
import { errorMessage } from '../../client/client.js';
import { Empty } from '../../components/Empty.js';
import { bytes, dateTime } from '../../lib/format.js';
import { useLiveQuery } from '../../lib/use-live-query.js';
import { useApp } from '../../store/app-store.js';
import { ExportPanel } from './ExportPanel.js';
import { useMay } from '../../lib/permissions.js';

const PAGE = 60;

function Thumb({ asset }: { asset: AssetView }) {
  const assetUrl = useApp((s) => s.client.assetUrl);
  const url = asset.mediaType.startsWith('image/') ? assetUrl(asset.id) : null;
  return (
    <div className="thumb">
      {url ? <img src={url} alt={asset.fileName} loading="lazy" /> : <span className="muted small">{asset.mediaType.split('/')[1] ?? 'file'}</span>}
    </div>
  );
}

/** Desktop only (the client's shell capability): the file in the OS file manager. */
function RevealButton({ a }: { a: AssetView }) {
  const shell = useApp((s) => s.client.shell);
  const notify = useApp((s) => s.notify);
  if (!shell) return null;
  return (
    <button className="btn btn-ghost reveal" onClick={() => shell.revealFile(a.path).catch((err: unknown) => notify('error', errorMessage(err)))} title={a.path} data-action="reveal">
      Show in folder
    </button>
  );
}

function AssetCard({ a, onApprove }: { a: AssetView; onApprove: (a: AssetView) => void }) {
  const { may } = useMay();
  return (
    <article className={`asset${a.approved ? ' asset-approved' : ''}`} data-asset={a.id} data-shot={a.shot}>
      <Thumb asset={a} />
      <div className="asset-body">
        <div className="asset-title"><b>{a.shot}</b> · {a.stage} <span className="muted">take {a.take}</span></div>
        <div className="muted small truncate" title={a.path}>{a.fileName}</div>
        <div className="muted small">{a.width && a.height ? `${a.width}×${a.height} · ` : ''}{bytes(a.bytes)} · {a.instanceName ?? '—'}</div>
        <div className="muted small">{a.templateName} · seed {a.seed ?? '—'} · {dateTime(a.createdAt)}</div>
        <div className="mono tiny muted truncate" title={a.sha256}>sha256 {a.sha256.slice(0, 16)}…</div>
        <RevealButton a={a} />
      </div>
      <button className={`approve${a.approved ? ' approve-on' : ''}`} onClick={() => onApprove(a)} aria-pressed={a.approved} data-action="approve" disabled={!may('approvals')}>
        {a.approved ? '✓ Approved' : 'Approve'}
      </button>
    </article>
  );
}

export function LedgerView() {
  const { may } = useMay();
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  const [filter, setFilter] = useState({ project: '', episode: '', shot: '', search: '' });
  const [limit, setLimit] = useState(PAGE);
  const [version, setVersion] = useState(0);
  const clean = Object.fromEntries(Object.entries(filter).filter(([, v]) => v.trim() !== '').map(([k, v]) => [k, v.trim()]));
  const q = useLiveQuery(() => client.call('assets.list', { ...clean, limit }), [clean, limit, version], 2_000);

  const approve = async (a: AssetView) => {
    try {
      await client.call('assets.approve', { ids: [a.id], approved: !a.approved });
      setVersion((v) => v + 1);
    } catch (err) {
      notify('error', errorMessage(err));
    }
  };

  const field = (key: keyof typeof filter, label: string) => (
    <label className="field field-inline">
      <span className="field-label">{label}</span>
      <input className="input" value={filter[key]} placeholder="all" onChange={(e) => (setFilter({ ...filter, [key]: e.target.value }), setLimit(PAGE))} data-ledger-filter={key} />
    </label>
  );
  return (
    <section className="view view-ledger">
      <div className="view-head">
        <div>
          <h1>Ledger</h1>
          <div className="muted">{q.data ? `${q.data.total.toLocaleString()} output file${q.data.total === 1 ? '' : 's'}, hashed, with where and how they were made` : 'Loading…'}</div>
        </div>
      </div>
      <div className="filters">
        {field('search', 'Search')}
        {field('project', 'Project')}
        {field('episode', 'Episode')}
        {field('shot', 'Shot')}
      </div>
      <div className="ledger-layout">
        <div>
          {q.error && <Empty title="Could not load the ledger" tone="error">{q.error}</Empty>}
          {q.data && q.data.rows.length === 0 && <Empty title="No outputs yet">Finished renders appear here with their hash, size and settings.</Empty>}
          <div className="assets">{q.data?.rows.map((a) => <AssetCard key={a.id} a={a} onApprove={(x) => void approve(x)} />)}</div>
          {q.data && q.data.total > q.data.rows.length && (
            <button className="btn btn-ghost more" onClick={() => setLimit(limit + PAGE)}>Show more ({(q.data.total - q.data.rows.length).toLocaleString()} left)</button>
          )}
        </div>
        {may('exports') && <ExportPanel />}
      </div>
    </section>
  );
}
