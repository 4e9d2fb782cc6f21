/**
 * Add many workstations at once: a pasted list, one per line — `[NAME] URL [TAGS]`, a range such
 * as http://gpu-[01-40]:8188 for a row of machines. Checked here line by line (the same parser the
 * CLI uses), then sent as one call that stores all of them or none (instances.addMany); every
 * problem, the page's or the engine's, is listed with its line.
 */
import { useState } from 'react';
import { parseWorkstationList, problemLines, type BatchProblem } from '../../../shared/workstation-batch.js';
import { ApiError, errorMessage } from '../../client/client.js';
import { FormFooter, TagsField } from '../../components/FormParts.js';
import { Modal } from '../../components/Modal.js';
import { plainError } from '../../lib/plain-error.js';
import { parseTagList } from '../../lib/tag-list.js';
import { useApp } from '../../store/app-store.js';
import { KindChoice, type WorkstationKind } from './KindChoice.js';

const FIELDS = { workstations: 'The list', timeoutMs: 'The probe timeout' };
const EXAMPLE = 'http://gpu-[01-40]:8188\ngpu-spare http://10.0.0.99:8188 img2img';

/** The engine's problems, when it refused the list for them (a name or URL already registered). */
function problemsOf(err: unknown): BatchProblem[] | null {
  const problems = err instanceof ApiError ? err.envelope.details?.problems : undefined;
  return Array.isArray(problems) ? (problems as BatchProblem[]) : null;
}

export function ListForm({ onKind, onClose }: { onKind: (k: WorkstationKind) => void; onClose: () => void }) {
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  const [text, setText] = useState('');
  const [tags, setTags] = useState('');
  const [problems, setProblems] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  const save = async () => {
    const parsed = parseWorkstationList(text.split('\n'), 'line', { tags: parseTagList(tags) });
    setProblems(problemLines(parsed.problems));
    if (parsed.problems.length) return;
    setBusy(true);
    try {
      const r = await client.call('instances.addMany', { workstations: parsed.entries });
      const silent = r.added - r.healthy;
      notify(
        silent ? 'info' : 'success',
        `${r.added} workstation(s) added; ${r.healthy} answered${silent ? `, ${silent} did not yet (see their cards)` : ''}.`,
      );
      onClose();
    } catch (err) {
      const found = problemsOf(err);
      setProblems(found ? problemLines(found) : [plainError(errorMessage(err), FIELDS)]);
      setBusy(false);
    }
  };

  const count = text.split('\n').filter((l) => l.replace(/#.*$/, '').trim()).length;
  return (
    <Modal
      title="Add workstations"
      onClose={onClose}
      footer={
        <FormFooter
          note={`${count} line(s)`}
          onCancel={onClose}
          onSave={() => void save()}
          disabled={busy || count === 0}
          testId="list-save"
        >
          {busy ? 'Adding and probing…' : 'Add workstations'}
        </FormFooter>
      }
    >
      <form className="form" onSubmit={(e) => (e.preventDefault(), void save())} data-testid="list-form">
        <KindChoice kind="list" onKind={onKind} />
        {problems.length > 0 && (
          <div className="alert alert-error" role="alert" data-testid="list-error">
            Nothing was added: {problems.length} problem(s).
            <ul className="problem-list">
              {problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </div>
        )}
        <label className="field">
          <span className="field-label">
            Workstations{' '}
            <span className="field-hint">
              (one per line: [name] URL [tags]; a range like gpu-[01-40] adds a row; names come from hosts)
            </span>
          </span>
          <textarea
            className="input textarea"
            rows={9}
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder={EXAMPLE}
            spellCheck={false}
            data-field="list"
            autoFocus
          />
        </label>
        <TagsField value={tags} onChange={setTags} placeholder="img2img, i2v_video" lead="Tags for all" />
        <button type="submit" hidden />
      </form>
    </Modal>
  );
}
