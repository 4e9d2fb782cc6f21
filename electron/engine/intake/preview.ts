/**
 * The import preview (SPEC §7): every row is checked — template exists, its parameters exist,
 * input files exist, the stage it depends on exists, its VRAM need fits some workstation, it is
 * not already stored — and shown with its errors. Nothing is written here.
 */
import type { ImportRowView } from '../../../shared/domain.js';
import type { ParamValue } from '../../../shared/shot-list-schema.js';
import { jobId } from '../ids.js';
import type { Db } from '../store/database.js';
import { listInstanceRows } from '../store/instance-store.js';
import { existingJobIds, shotsWithStage, stageExists } from '../store/job-store.js';
import { latestTemplate, type StoredTemplate } from '../store/template-store.js';
import { dependencyCycles } from './dependency-cycles.js';
import { checkInputPath, type InputCheck, type InputFolder } from './input-paths.js';
import { NO_ENTRIES, type ShotRow } from './shot-row.js';

/** A row ready to store: the read row plus everything resolved during the preview. */
export interface CheckedRow {
  view: ImportRowView;
  source: ShotRow;
  template: StoredTemplate | null;
  parameters: Record<string, ParamValue>;
  /** Parameter name → the real path of the input file (inside the shot list's folder). */
  inputs: Record<string, string>;
}

/**
 * The capability check against the workstations' node lists (the running farm's, else those the
 * store keeps): problems that keep every enabled workstation from running this, [] when one can,
 * null when no node list is known yet.
 */
export interface CapabilityPort {
  capabilityProblems(template: StoredTemplate, parameters: Record<string, ParamValue>): string[] | null;
}

/**
 * The row's parameters over what the tracker columns can feed (when the row does not set them):
 * one copy per row (a 100k-row preview makes it for every row).
 */
function withTrackerDefaults(row: ShotRow, t: StoredTemplate): Record<string, ParamValue> {
  const prompt = 'prompt' in t.parameters && row.description ? row.description : null;
  const frames = row.metadata.frames;
  const frameCount = 'frames' in t.parameters && frames && /^\d+$/.test(frames) ? Number(frames) : null;
  // The common row (nothing from the tracker columns) is one plain copy, not a merge of two objects.
  if (prompt === null && frameCount === null) return { ...row.parameters };
  const out: Record<string, ParamValue> = {};
  if (prompt !== null) out.prompt = prompt;
  if (frameCount !== null) out.frames = frameCount;
  return { ...out, ...row.parameters };
}

export interface CheckResult {
  rows: CheckedRow[];
  /** File-wide remarks (what could not be checked yet), shown once rather than on every row. */
  notices: string[];
}

export interface CheckOptions {
  /** The shot list's file name: every row error names it. */
  fileName: string;
  /** Where its input files may be (input-paths.ts). */
  folder: InputFolder;
  capability?: CapabilityPort | null;
  /**
   * Called after each step of CHECK_STEP rows with the rows checked so far and their counts (a
   * later row's dependency on a row with errors can still turn a new row into an error at the end).
   */
  onStep?: (done: number, counts: { new: number; duplicate: number; error: number }) => Promise<void> | void;
}

/** Rows checked between two progress reports. */
export const CHECK_STEP = 5_000;

/** "shots.csv, row 3 (line 4)": where a row error is, for a person with the file open. */
function rowPlace(fileName: string, row: ShotRow): string {
  return `${fileName}, row ${row.row}${row.line !== null ? ` (line ${row.line})` : ''}`;
}

export async function checkRows(db: Db, rows: ShotRow[], o: CheckOptions): Promise<CheckResult> {
  const capability = o.capability ?? null;
  const notices = new Set<string>();
  const inputChecks = new Map<string, InputCheck>();
  const checkInput = (path: string, name: string): InputCheck => {
    const key = `${name}\u001f${path}`;
    let c = inputChecks.get(key);
    if (!c) inputChecks.set(key, (c = checkInputPath(o.folder, path, name)));
    return c;
  };
  const cycles = dependencyCycles(rows);
  const templates = new Map<string, StoredTemplate | null>();
  const getTemplate = (name: string): StoredTemplate | null => {
    if (!templates.has(name)) templates.set(name, latestTemplate(db, name));
    return templates.get(name) ?? null;
  };
  // Read once (on PostgreSQL a round trip): every registered workstation, disabled ones too.
  const registered = listInstanceRows(db);
  const instances = registered.filter((i) => i.admin_state !== 'disabled');
  const knownVram = instances
    .map((i) => (i.vram_json ? (JSON.parse(i.vram_json) as { totalBytes: number }).totalBytes : null))
    .filter((v): v is number => v !== null);
  const largestGb = knownVram.length ? Math.max(...knownVram) / 1024 ** 3 : null;
  // Every registered workstation's tags, disabled ones too: enabling one is the operator's fix.
  const farmTags = new Set(registered.flatMap((i) => JSON.parse(i.tags_json) as string[]));

  const storedStages = new Map<string, boolean>();
  /** Whether the store has this stage of the shot (asked once per stage, however many rows name it). */
  const stageStored = (project: string, episode: string, shot: string, stage: string): boolean => {
    const key = `${project}\u001f${episode}\u001f${shot}\u001f${stage}`;
    let has = storedStages.get(key);
    if (has === undefined) storedStages.set(key, (has = stageExists(db, project, episode, shot, stage)));
    return has;
  };
  /** A template's tags no workstation has (asked once per template, not per row). */
  const untaggedByTemplate = new Map<StoredTemplate, string[]>();
  const untaggedOf = (t: StoredTemplate): string[] => {
    let u = untaggedByTemplate.get(t);
    if (!u) untaggedByTemplate.set(t, (u = t.tags.filter((tag) => !farmTags.has(tag))));
    return u;
  };
  const seenInFile = new Map<string, number>();
  // Every stage some row waits for, asked of the store at once (per project, episode and stage, a
  // few hundred shots a statement) rather than once per shot as the rows come.
  const waitedFor = new Map<string, { project: string; episode: string; stage: string; shots: Set<string> }>();
  for (const r of rows) {
    if (!r.dependsOn) continue;
    const group = `${r.project}\u001f${r.episode}\u001f${r.dependsOn}`;
    let g = waitedFor.get(group);
    if (!g)
      waitedFor.set(group, (g = { project: r.project, episode: r.episode, stage: r.dependsOn, shots: new Set() }));
    g.shots.add(r.shot);
  }
  for (const g of waitedFor.values()) {
    const shots = [...g.shots];
    const stored = shotsWithStage(db, g.project, g.episode, g.stage, shots);
    for (const shot of shots)
      storedStages.set(`${g.project}\u001f${g.episode}\u001f${shot}\u001f${g.stage}`, stored.has(shot));
  }
  // The dependency checks' indexes, built only when some row waits for a stage (a list of one-stage
  // shots, the common 100k case, skips two passes over its rows).
  const anyDepends = rows.some((r) => r.dependsOn);
  const stagesInFile = anyDepends
    ? new Set(rows.map((r) => `${r.project}\u001f${r.episode}\u001f${r.shot}\u001f${r.stage}`))
    : new Set<string>();

  const checkOne = (row: ShotRow, index: number): CheckedRow => {
    const errors = [...row.errors];
    const warnings: string[] = [];
    const template = row.template ? getTemplate(row.template) : null;
    let parameters: Record<string, ParamValue> = template ? {} : { ...row.parameters };
    // Its own record only when the row has an input (most have none).
    let inputs: Record<string, string> = NO_ENTRIES;

    if (row.template && !template)
      errors.push(`template "${row.template}" is not registered (add it with: shotfarm templates add FILE)`);
    if (template) {
      if (row.stage && template.stage !== row.stage) {
        warnings.push(`template "${template.name}" is made for stage "${template.stage}", this row is "${row.stage}"`);
      }
      parameters = withTrackerDefaults(row, template);
      for (const name of Object.keys(parameters)) {
        if (!(name in template.parameters)) {
          errors.push(
            `parameter "${name}" is not defined by template "${template.name}" (it has: ${Object.keys(template.parameters).join(', ') || 'none'})`,
          );
        }
      }
      for (const [name, path] of Object.entries(row.inputs)) {
        if (!(name in template.parameters)) {
          errors.push(`input "${name}" is not a parameter of template "${template.name}"`);
          continue;
        }
        const input = checkInput(path, name);
        if (input.ok) {
          if (inputs === NO_ENTRIES) inputs = {};
          inputs[name] = input.path;
        } else errors.push(input.message);
      }
      if (largestGb === null) notices.add('VRAM fit not checked: no workstation has been probed yet.');
      else if (template.vramGb > largestGb + 1e-9) {
        errors.push(`needs ${template.vramGb} GB of VRAM; the largest workstation has ${largestGb.toFixed(0)} GB`);
      }
      const untagged = untaggedOf(template);
      // A warning, not an error: the job imports and waits as blocked until a workstation has the tag.
      if (registered.length > 0 && untagged.length) {
        warnings.push(
          `needs tag ${untagged.join(', ')}, which no workstation has: it will wait as blocked until one does (Edit a workstation's tags under Workstations)`,
        );
      }
      if (capability) {
        const problems = capability.capabilityProblems(template, parameters);
        if (problems === null) notices.add('node lists not known yet: the node/model check was skipped');
        else errors.push(...problems);
      }
    }
    if (row.dependsOn) {
      const key = `${row.project}\u001f${row.episode}\u001f${row.shot}\u001f${row.dependsOn}`;
      const inDb = stageStored(row.project, row.episode, row.shot, row.dependsOn);
      if (row.dependsOn === row.stage) errors.push('a stage cannot depend on itself');
      else if (!stagesInFile.has(key) && !inDb)
        errors.push(`depends on stage "${row.dependsOn}", which this shot does not have`);
      const cycle = cycles.get(index);
      if (cycle)
        errors.push(`depends_on makes a cycle between stages ${cycle} of this shot: none of them could ever start`);
    }

    let id: string | null = null;
    let status: ImportRowView['status'] = 'error';
    if (errors.length === 0) {
      id = jobId(row);
      const firstRow = seenInFile.get(id);
      if (firstRow !== undefined) {
        errors.push(`same shot, stage and take as row ${firstRow}`);
      } else {
        seenInFile.set(id, row.row);
        // New unless stored already: asked of the store for all rows at once, below.
        status = 'new';
      }
    }
    return {
      view: {
        row: row.row,
        line: row.line,
        project: row.project,
        episode: row.episode,
        shot: row.shot,
        stage: row.stage,
        take: row.take,
        template: row.template,
        priority: row.priority,
        jobId: id,
        status: errors.length ? 'error' : status,
        errors,
        warnings,
      },
      source: row,
      template,
      parameters,
      inputs,
    };
  };

  // A step at a time: which of a step's ids are stored is one lookup per 500 rows, not one per
  // row, and between steps the caller hears how far the check is (and may let other work run).
  const checked: CheckedRow[] = [];
  const counts = { new: 0, duplicate: 0, error: 0 };
  for (let from = 0; from < rows.length; from += CHECK_STEP) {
    const step = rows.slice(from, from + CHECK_STEP).map((row, i) => checkOne(row, from + i));
    const ids: string[] = [];
    for (const c of step) if (c.view.status === 'new' && c.view.jobId) ids.push(c.view.jobId);
    const stored = existingJobIds(db, ids);
    for (const c of step) {
      if (c.view.status === 'new' && c.view.jobId && stored.has(c.view.jobId)) {
        c.view.status = 'duplicate';
        c.view.warnings.push(
          'already imported (same project, episode, shot, stage and take); use "new take" to render it again',
        );
      }
      counts[c.view.status]++;
      checked.push(c);
    }
    await o.onStep?.(checked.length, { ...counts });
  }

  // Second pass: a row that waits for a stage which only this file provides, in a row that has
  // errors, would wait forever — report it now instead of storing it.
  const byKey = new Map(
    (anyDepends ? checked : []).map((c) => [
      `${c.source.project}\u001f${c.source.episode}\u001f${c.source.shot}\u001f${c.source.stage}\u001f${c.source.take}`,
      c,
    ]),
  );
  for (const c of checked) {
    const s = c.source;
    if (!s.dependsOn || c.view.status === 'error') continue;
    const dep = byKey.get(`${s.project}\u001f${s.episode}\u001f${s.shot}\u001f${s.dependsOn}\u001f${s.take}`);
    const inDb = stageStored(s.project, s.episode, s.shot, s.dependsOn);
    if (dep && dep.view.status === 'error' && !inDb) {
      c.view.errors.push(`depends on row ${dep.view.row} (${s.dependsOn}), which has errors`);
      c.view.status = 'error';
      c.view.jobId = null;
    }
  }
  for (const c of checked) {
    if (c.view.errors.length) c.view.errors = c.view.errors.map((e) => `${rowPlace(o.fileName, c.source)}: ${e}`);
  }
  return { rows: checked, notices: [...notices] };
}
