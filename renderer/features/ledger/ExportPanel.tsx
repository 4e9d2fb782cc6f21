/**
 * CSV exports of the run log and the ledger, written by the server into its export folder (the page
 * chooses a file name there, never an arbitrary path). Shows how many rows were written, and where.
 */
import { useState } from 'react';
import type { ExportResult } from '../../../shared/domain.js';
import { errorMessage } from '../../client/client.js';
import { bytes } from '../../lib/format.js';
import { useApp } from '../../store/app-store.js';

const OUTCOMES = ['', 'completed', 'failed', 'retry', 'timeout', 'lost', 'cancelled', 'requeued', 'running'];
const today = () => new Date().toISOString().slice(0, 10);

function toEpoch(local: string): number | undefined {
  if (!local) return undefined;
  const t = new Date(local).getTime();
  return Number.isNaN(t) ? undefined : t;
}

export function ExportPanel() {
  const client = useApp((s) => s.client);
  const exportDir = useApp((s) => s.info?.exportDir ?? null);
  const [kind, setKind] = useState<'runlog' | 'ledger'>('runlog');
  const [path, setPath] = useState('');
  const [project, setProject] = useState('');
  const [episode, setEpisode] = useState('');
  const [outcome, setOutcome] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [result, setResult] = useState<ExportResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const fileName = path.trim() || `shotfarm-${kind}-${today()}.csv`;

  const run = async () => {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const input = {
        path: fileName, project: project.trim() || undefined, episode: episode.trim() || undefined,
        outcome: kind === 'runlog' ? outcome || undefined : undefined, from: toEpoch(from), to: toEpoch(to),
      };
      setResult(await client.call(kind === 'runlog' ? 'export.runlog' : 'export.ledger', input));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel export" data-testid="export-panel">
      <div className="panel-head">
        <h2>Export CSV</h2>
        <div className="seg" role="group">
          <button className={`seg-btn${kind === 'runlog' ? ' seg-on' : ''}`} onClick={() => setKind('runlog')} data-export-kind="runlog">Run log</button>
          <button className={`seg-btn${kind === 'ledger' ? ' seg-on' : ''}`} onClick={() => setKind('ledger')} data-export-kind="ledger">Ledger</button>
        </div>
      </div>
      <p className="muted small">{kind === 'runlog' ? 'One row per attempt: where and when it ran, the outcome, the failure reason.' : 'One row per output file: path, SHA-256, size, template, seed, approval.'}</p>
      <div className="export-grid">
        <label className="field field-wide">
          <span className="field-label">File name</span>
          <input className="input" value={path} placeholder={fileName} onChange={(e) => setPath(e.target.value)} data-testid="export-path" />
          {exportDir && <span className="field-hint mono">written in {exportDir}</span>}
        </label>
        <label className="field"><span className="field-label">Project</span><input className="input" value={project} onChange={(e) => setProject(e.target.value)} placeholder="all" /></label>
        <label className="field"><span className="field-label">Episode</span><input className="input" value={episode} onChange={(e) => setEpisode(e.target.value)} placeholder="all" /></label>
        {kind === 'runlog' && (
          <label className="field">
            <span className="field-label">Outcome</span>
            <select className="input" value={outcome} onChange={(e) => setOutcome(e.target.value)} data-testid="export-outcome">
              {OUTCOMES.map((o) => <option key={o} value={o}>{o || 'all'}</option>)}
            </select>
          </label>
        )}
        <label className="field"><span className="field-label">From</span><input className="input" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} /></label>
        <label className="field"><span className="field-label">To</span><input className="input" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} /></label>
        <button className="btn btn-primary export-go" onClick={() => void run()} disabled={busy} data-testid="export-run">{busy ? 'Writing…' : `Export ${kind === 'runlog' ? 'run log' : 'ledger'}`}</button>
      </div>
      {result && (
        <div className="alert alert-ok" data-testid="export-result" data-rows={result.rows} data-path={result.path}>
          Wrote <b>{result.rows.toLocaleString()}</b> row{result.rows === 1 ? '' : 's'} ({bytes(result.bytes)}) to <span className="mono">{result.path}</span>
        </div>
      )}
      {error && <div className="alert alert-error" role="alert">{error}</div>}
    </section>
  );
}
