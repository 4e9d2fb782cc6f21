/**
 * The "Register a template" dialog's state: the dropped file as read (shared/template-builder.ts),
 * the fields and chosen node inputs, the template file they make, and the engine's verdict on it —
 * a dry run of `templates.add` shortly after every change, so the parser's own words show as you edit.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { TemplateView } from '../../../shared/domain.js';
import {
  buildTemplateFile,
  readWorkflowText,
  suggestParameterName,
  type WorkflowInput,
  type WorkflowReading,
} from '../../../shared/template-builder.js';
import { errorMessage } from '../../client/client.js';
import { useApp } from '../../store/app-store.js';

export interface DraftFields {
  name: string;
  stage: string;
  vramGb: string;
  timeoutS: string;
  tags: string;
}

export type Verdict =
  | { status: 'idle' }
  | { status: 'checking' }
  | { status: 'ok'; view: TemplateView }
  | { status: 'error'; message: string };

const CHECK_AFTER_MS = 250;
const stem = (fileName: string) =>
  fileName
    .replace(/\.json$/i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'template';
const numberOrUndefined = (s: string) => (s.trim() === '' || !Number.isFinite(Number(s)) ? undefined : Number(s));

/** The inputs a new template usually exposes: each take's seed, the prompt, the input image. */
function firstChoices(inputs: readonly WorkflowInput[]): Record<string, string> {
  const chosen: Record<string, string> = {};
  const taken = new Set<string>();
  for (const i of inputs) {
    const name = suggestParameterName(i, taken);
    if (!['seed', 'prompt', 'image'].includes(name)) continue;
    chosen[i.path] = name;
    taken.add(name);
  }
  return chosen;
}

export function useTemplateDraft(file: { name: string; text: string } | null, stages: readonly string[]) {
  const client = useApp((s) => s.client);
  const reading: WorkflowReading | null = useMemo(() => (file ? readWorkflowText(file.text) : null), [file]);
  const [fields, setFields] = useState<DraftFields>({ name: '', stage: '', vramGb: '', timeoutS: '', tags: '' });
  /** Parameter path → the name it gets. */
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const [verdict, setVerdict] = useState<Verdict>({ status: 'idle' });

  // A new file starts a new draft: from the template it is, or from the workflow's usual inputs.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only another file starts a new draft; the stage list loading later must not reset it.
  useEffect(() => {
    if (!file || !reading) return;
    if (reading.kind === 'template') {
      const t = reading.template;
      const params = (t.parameters && typeof t.parameters === 'object' ? t.parameters : {}) as Record<string, unknown>;
      setFields({
        name: typeof t.name === 'string' ? t.name : stem(file.name),
        stage: typeof t.stage === 'string' ? t.stage : (stages[0] ?? 'keyframe'),
        vramGb: typeof t.vram_gb === 'number' ? String(t.vram_gb) : '',
        timeoutS: typeof t.timeout_s === 'number' ? String(t.timeout_s) : '',
        tags: Array.isArray(t.tags) ? t.tags.join(', ') : '',
      });
      setChosen(
        Object.fromEntries(
          Object.entries(params)
            .filter(([, p]) => typeof p === 'string')
            .map(([name, p]) => [p as string, name]),
        ),
      );
    } else {
      setFields({ name: stem(file.name), stage: stages[0] ?? 'keyframe', vramGb: '', timeoutS: '', tags: '' });
      setChosen(reading.kind === 'workflow' ? firstChoices(reading.inputs) : {});
    }
    // Only when another file arrives; the stage list loading later must not reset the draft.
  }, [file, reading]);

  // Two inputs under one name would silently become one parameter in the file: said here instead.
  const names = Object.values(chosen).map((n) => n.trim());
  const twice = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
  const clash = twice.length
    ? `Two inputs are named ${twice.map((n) => `"${n}"`).join(', ')}: give each parameter a name of its own.`
    : null;

  const content = useMemo(() => {
    if (!file || !reading) return null;
    if (reading.kind === 'other') return file.text;
    const parameters = Object.fromEntries(Object.entries(chosen).map(([path, name]) => [name.trim(), path]));
    const vramGb = numberOrUndefined(fields.vramGb);
    const timeoutS = numberOrUndefined(fields.timeoutS);
    return buildTemplateFile({
      name: fields.name,
      stage: fields.stage,
      parameters,
      workflow: reading.workflow,
      tags: fields.tags.split(','),
      ...(vramGb !== undefined ? { vramGb } : {}),
      ...(timeoutS !== undefined ? { timeoutS } : {}),
    });
  }, [file, reading, fields, chosen]);

  const seq = useRef(0);
  useEffect(() => {
    const mine = ++seq.current;
    if (content === null || !file) return setVerdict({ status: 'idle' });
    if (clash) return setVerdict({ status: 'error', message: clash });
    setVerdict({ status: 'checking' });
    const t = setTimeout(() => {
      client.call('templates.add', { content, fileName: fields.name.trim() || file.name, dryRun: true }).then(
        (view) => mine === seq.current && setVerdict({ status: 'ok', view }),
        (err: unknown) => mine === seq.current && setVerdict({ status: 'error', message: errorMessage(err) }),
      );
    }, CHECK_AFTER_MS);
    return () => clearTimeout(t);
  }, [client, content, file, fields.name, clash]);

  const register = async (): Promise<TemplateView> => {
    if (content === null || !file) throw new Error('Choose a workflow file first.');
    return client.call('templates.add', { content, fileName: fields.name.trim() || file.name });
  };

  return { reading, fields, setFields, chosen, setChosen, verdict, register };
}
