/**
 * CSV exports of the run log and the ledger. In a browser they download (the server streams the
 * file, writing nothing on its disk); in the desktop app they go where the save dialog says. Either
 * way the file is named with the date and time and never replaces another.
 */
import { useState } from 'react';
import type { ExportResult } from '../../../shared/domain.js';
import { RUNLOG_OUTCOMES, type ExportFilterInput, type ExportKind } from '../../../shared/exports.js';
import { errorMessage } from '../../client/client.js';
import { startDownload } from '../../client/download.js';
import { Field, FormError, TextField } from '../../components/FormParts.js';
import { bytes } from '../../lib/format.js';
import { useApp } from '../../store/app-store.js';

function toEpoch(local: string): number | undefined {
  if (!local) return undefined;
  const t = new Date(local).getTime();
  return Number.isNaN(t) ? undefined : t;
}

const WHAT: Record<ExportKind, string> = {
  runlog:
    'One row per attempt: where it belongs (project, episode, sequence, shot, stage, take, attempt), what happened, where and from what, and when (local time). wait_s counts from when the job last became eligible to run.',
  ledger: 'One row per output file: path, SHA-256, size, template, seed, approval.',
};

const KINDS: readonly (readonly [ExportKind, string])[] = [
  ['runlog', 'Run log'],
  ['ledger', 'Ledger'],
];

export function ExportPanel() {
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  const [kind, setKind] = useState<ExportKind>('runlog');
  const [project, setProject] = useState('');
  const [episode, setEpisode] = useState('');
  const [outcome, setOutcome] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [saved, setSaved] = useState<ExportResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const label = kind === 'runlog' ? 'run log' : 'ledger';

  const filter = (): ExportFilterInput => ({
    ...(project.trim() ? { project: project.trim() } : {}),
    ...(episode.trim() ? { episode: episode.trim() } : {}),
    ...(kind === 'runlog' && outcome ? { outcome } : {}),
    ...(toEpoch(from) !== undefined ? { from: toEpoch(from) } : {}),
    ...(toEpoch(to) !== undefined ? { to: toEpoch(to) } : {}),
  });

  const run = async () => {
    setError(null);
    setSaved(null);
    const url = client.exportUrl(kind, filter());
    if (url) {
      try {
        await startDownload(url);
        notify('info', `Downloading the ${label} as CSV.`);
      } catch (err) {
        setError(errorMessage(err));
      }
      return;
    }
    if (!client.shell) return setError('Exports need the Shotfarm server or the desktop app.');
    setBusy(true);
    try {
      setSaved(await client.shell.saveExport(kind, filter()));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel export" data-testid="export-panel" data-needs="exports">
      <div className="panel-head">
        <h2>Export CSV</h2>
        <div className="seg" role="group">
          {KINDS.map(([k, name]) => (
            <button
              key={k}
              type="button"
              className={`seg-btn${kind === k ? ' seg-on' : ''}`}
              onClick={() => setKind(k)}
              data-export-kind={k}
            >
              {name}
            </button>
          ))}
        </div>
      </div>
      <p className="muted small">{WHAT[kind]}</p>
      <div className="export-grid">
        <TextField
          label="Project"
          value={project}
          onChange={setProject}
          placeholder="all"
          data={{ 'data-export-filter': 'project' }}
        />
        <TextField
          label="Episode"
          value={episode}
          onChange={setEpisode}
          placeholder="all"
          data={{ 'data-export-filter': 'episode' }}
        />
        {kind === 'runlog' && (
          <Field label="Outcome" size="wide">
            <select
              className="input"
              value={outcome}
              onChange={(e) => setOutcome(e.target.value)}
              data-testid="export-outcome"
            >
              {['', ...RUNLOG_OUTCOMES].map((o) => (
                <option key={o} value={o}>
                  {o || 'all'}
                </option>
              ))}
            </select>
          </Field>
        )}
        <Field label="From">
          <input className="input" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
        </Field>
        <Field label="To">
          <input className="input" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />
        </Field>
        <button
          type="button"
          className="btn btn-primary export-go"
          onClick={() => void run()}
          disabled={busy}
          data-testid="export-run"
        >
          {busy ? 'Writing…' : client.shell ? `Save ${label}…` : `Download ${label}`}
        </button>
      </div>
      <p className="muted tiny export-where">
        {client.shell
          ? 'Saved where you choose, named shotfarm-<kind>-<date>_<time>.csv; an existing file is never replaced.'
          : 'Your browser saves it as shotfarm-<kind>-<date>_<time>.csv; nothing is written on the server.'}
      </p>
      {saved && (
        <div className="alert alert-ok" data-testid="export-result" data-rows={saved.rows} data-path={saved.path}>
          Wrote <b>{saved.rows.toLocaleString()}</b> row{saved.rows === 1 ? '' : 's'} ({bytes(saved.bytes)}) to{' '}
          <span className="mono">{saved.path}</span>
          {client.shell && (
            <button
              type="button"
              className="btn btn-sm btn-ghost"
              onClick={() => client.shell?.revealFile(saved.path).catch((err: unknown) => setError(errorMessage(err)))}
            >
              Show in folder
            </button>
          )}
        </div>
      )}
      <FormError error={error} />
    </section>
  );
}
