/** The registered templates (latest version of each), and "Register a template…" (the same dialog as the import's). */
import { Fragment, useCallback, useEffect, useState } from 'react';
import type { TemplateView } from '../../../shared/domain.js';
import { errorMessage } from '../../client/client.js';
import { dateTime } from '../../lib/format.js';
import { useApp } from '../../store/app-store.js';
import { useMay } from '../../store/use-may.js';
import { stagesOf } from '../import/MappingEditor.js';
import { TemplateDialog } from '../import/TemplateDialog.js';
import { TemplatePlots } from './plots/TemplatePlots.js';
import { TemplateRunTime } from './TemplateRunTime.js';
import { TemplateVram } from './TemplateVram.js';

/** The table's columns (the plots' row spans them all). */
const COLUMNS = 9;

export function TemplatesPanel() {
  const client = useApp((s) => s.client);
  const [templates, setTemplates] = useState<TemplateView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [registering, setRegistering] = useState(false);
  /** The template whose plots are open below its row (one at a time: they are wide). */
  const [plotted, setPlotted] = useState<string | null>(null);
  const { why } = useMay();
  const load = useCallback(() => {
    client.call('templates.list', {}).then(setTemplates, (err: unknown) => setError(errorMessage(err)));
  }, [client]);
  useEffect(load, [load]);
  return (
    <section className="panel templates-panel" data-testid="templates-panel">
      <div className="panel-head">
        <h2>Templates</h2>
        <button
          type="button"
          className="btn btn-sm"
          onClick={() => setRegistering(true)}
          disabled={why('templates') !== undefined}
          title={why('templates')}
          data-testid="settings-register-template"
          data-needs="templates"
        >
          + Register a template…
        </button>
      </div>
      {error && <div className="alert alert-error">{error}</div>}
      {templates && templates.length === 0 && (
        <div className="muted small">None yet: register a ComfyUI workflow exported in API format.</div>
      )}
      {templates && templates.length > 0 && (
        <table className="grid-table templates-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Version</th>
              <th>Stage</th>
              <th>VRAM</th>
              <th>Run time</th>
              <th>Tags</th>
              <th>Time limit</th>
              <th>Parameters</th>
              <th>Registered</th>
            </tr>
          </thead>
          <tbody>
            {templates.map((t) => (
              <Fragment key={t.name}>
                <tr data-template={t.name}>
                  <td>
                    <b>{t.name}</b>
                    <div>
                      <button
                        type="button"
                        className="btn btn-sm btn-ghost template-plots-toggle"
                        aria-expanded={plotted === t.name}
                        aria-controls={`plots-${t.name}`}
                        onClick={() => setPlotted(plotted === t.name ? null : t.name)}
                        data-testid="template-plots-toggle"
                      >
                        {plotted === t.name ? '▾ Hide plots' : '▸ Plots'}
                      </button>
                    </div>
                  </td>
                  <td className="num">v{t.version}</td>
                  <td>{t.stage}</td>
                  <td>
                    <TemplateVram name={t.name} declaredGb={t.vramGb} />
                  </td>
                  <td>
                    {/* A new version learns afresh: its row's figures are asked for again. */}
                    <TemplateRunTime key={t.version} name={t.name} />
                  </td>
                  <td>{t.tags.join(', ') || <span className="muted">—</span>}</td>
                  <td className="num">{t.timeoutS} s</td>
                  <td className="small">
                    {t.parameters.map((p) => p.name).join(', ') || <span className="muted">none</span>}
                  </td>
                  <td className="small muted">{dateTime(t.createdAt)}</td>
                </tr>
                {plotted === t.name && (
                  <tr className="template-plots-row" id={`plots-${t.name}`} data-plots={t.name}>
                    <td colSpan={COLUMNS}>
                      {/* A new version is plotted afresh. */}
                      <TemplatePlots key={t.version} name={t.name} />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
      {registering && (
        <TemplateDialog
          stages={stagesOf(templates ?? [])}
          onClose={() => setRegistering(false)}
          onRegistered={() => (setRegistering(false), load())}
        />
      )}
    </section>
  );
}
