/**
 * Defaults for the columns a CSV does not have: project and episode typed, stage and template
 * chosen from the registered templates (a template list filtered by the stage), priority. Every
 * change re-checks the preview by itself (ImportDialog). A missing template can be registered here.
 */
import type { TemplateView } from '../../../shared/domain.js';
import { PRIORITIES, type Priority } from '../../../shared/priorities.js';
import { useMay } from '../../store/use-may.js';

export interface Mapping {
  project: string;
  episode: string;
  stage: string;
  template: string;
  priority: Priority | '';
}

export const EMPTY_MAPPING: Mapping = { project: '', episode: '', stage: '', template: '', priority: '' };

/** The mapping as the contract takes it: blanks left out. */
export function cleanMapping(m: Mapping) {
  return {
    project: m.project.trim() || undefined,
    episode: m.episode.trim() || undefined,
    stage: m.stage || undefined,
    template: m.template || undefined,
    priority: m.priority || undefined,
  };
}

export function stagesOf(templates: readonly TemplateView[]): string[] {
  return [...new Set(templates.map((t) => t.stage))].sort();
}

export function MappingEditor({
  mapping,
  onChange,
  templates,
  checking,
  onRegisterTemplate,
}: {
  mapping: Mapping;
  onChange: (m: Mapping) => void;
  templates: readonly TemplateView[];
  checking: boolean;
  onRegisterTemplate: () => void;
}) {
  // Only the priorities the signed-in person may create (the server refuses rush rows to a role without it).
  const { may, why } = useMay();
  const offered = PRIORITIES.filter((p) => p !== 'rush' || may('rush'));
  const field = (key: 'project' | 'episode', label: string, hint: string) => (
    <label className="field">
      <span className="field-label">{label}</span>
      <input
        className="input"
        value={mapping[key]}
        placeholder={hint}
        onChange={(e) => onChange({ ...mapping, [key]: e.target.value })}
        data-mapping={key}
      />
    </label>
  );
  const fitting = templates.filter((t) => !mapping.stage || t.stage === mapping.stage);
  const setStage = (stage: string) => {
    // A template of another stage no longer fits the chosen stage.
    const keep = templates.find((t) => t.name === mapping.template && (!stage || t.stage === stage));
    onChange({ ...mapping, stage, template: keep ? mapping.template : '' });
  };
  return (
    <div className="mapping" data-testid="mapping">
      <div className="mapping-title">
        Defaults for columns the file does not have
        <span
          className={`mapping-checking muted small${checking ? '' : ' mapping-checked'}`}
          data-testid="mapping-state"
        >
          {checking ? 'checking…' : 'preview up to date'}
        </span>
      </div>
      <div className="mapping-grid">
        {field('project', 'Project', 'e.g. Moonfall')}
        {field('episode', 'Episode', 'e.g. ep101')}
        <label className="field">
          <span className="field-label">Stage</span>
          <select
            className="input"
            value={mapping.stage}
            onChange={(e) => setStage(e.target.value)}
            data-mapping="stage"
          >
            <option value="">(from file)</option>
            {stagesOf(templates).map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="field-label">Template</span>
          <select
            className="input"
            value={mapping.template}
            onChange={(e) => onChange({ ...mapping, template: e.target.value })}
            data-mapping="template"
          >
            <option value="">(from file)</option>
            {fitting.map((t) => (
              <option key={t.name} value={t.name}>
                {t.name} · {t.stage}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="field-label">Priority</span>
          <select
            className="input"
            value={mapping.priority}
            onChange={(e) => onChange({ ...mapping, priority: e.target.value as Priority | '' })}
            data-mapping="priority"
          >
            <option value="">(from file / normal)</option>
            {offered.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="btn btn-ghost mapping-register"
          onClick={onRegisterTemplate}
          disabled={why('templates') !== undefined}
          title={why('templates')}
          data-testid="register-template"
          data-needs="templates"
        >
          + Register a template…
        </button>
      </div>
    </div>
  );
}
