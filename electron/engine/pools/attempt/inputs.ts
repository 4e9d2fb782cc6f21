/**
 * Inputs reach the workstation that runs the job (SPEC §2, §7): image files named in the shot
 * list, and the output image of the stage this one depends on (a keyframe feeding its motion
 * clip), are uploaded with POST /upload/image just before the prompt is posted, and the names the
 * server returns are set as the job's parameters. A missing file fails the job before any GPU time.
 */
import { accessSync, constants } from 'node:fs';
import type { ComfyClient } from '../../comfy/client.js';
import type { Db } from '../../store/database.js';
import type { JobRow } from '../../store/job-rows.js';
import { firstImageOf } from '../../store/asset-store.js';
import type { StoredTemplate } from '../../store/template-store.js';
import { splitPath } from '../../templates/workflow.js';
import { ShotfarmError } from '../../../../shared/errors.js';

/** The parameter a dependency's output feeds: `image` when the template has one, else its first LoadImage input. */
export function dependencyInputParam(t: StoredTemplate): string | null {
  if ('image' in t.parameters) return 'image';
  for (const [name, path] of Object.entries(t.parameters)) {
    const node = t.workflow[splitPath(path).nodeId];
    if (node && /LoadImage/i.test(node.class_type)) return name;
  }
  return null;
}

export interface PlannedUpload {
  param: string;
  file: string;
  what: string;
}

/** What must be uploaded, by the store alone (the job detail shows it); throws when the dependency made no image. */
export function uploadPlan(db: Db, job: JobRow, template: StoredTemplate): PlannedUpload[] {
  const out: PlannedUpload[] = [];
  for (const [param, file] of Object.entries(JSON.parse(job.inputs_json) as Record<string, string>)) {
    out.push({ param, file, what: `input "${param}"` });
  }
  if (job.depends_on) {
    const param = dependencyInputParam(template);
    const dep = firstImageOf(db, job.depends_on);
    if (param && !out.some((u) => u.param === param)) {
      if (!dep) throw new ShotfarmError('bad_input', `its dependency produced no image to feed "${param}"`);
      out.push({ param, file: dep.path, what: `${dep.stage} take ${dep.take} output` });
    }
  }
  return out;
}

/** Works out what must be uploaded; throws bad_input (a permanent failure) when something is missing. */
export function plannedUploads(db: Db, job: JobRow, template: StoredTemplate): PlannedUpload[] {
  const out = uploadPlan(db, job, template);
  for (const u of out) {
    try {
      accessSync(u.file, constants.R_OK);
    } catch {
      throw new ShotfarmError('bad_input', `${u.what} file ${u.file} is missing or unreadable; fix it and retry`);
    }
  }
  return out;
}

/** The workstation's input subfolder of a job's uploads: one per job, so shots never clash. */
export function uploadSubfolder(jobId: string): string {
  return `shotfarm/${jobId}`;
}

/** Uploads into the job's subfolder and returns parameter → server name. */
export async function uploadInputs(
  client: ComfyClient,
  jobId: string,
  uploads: PlannedUpload[],
  signal?: AbortSignal,
): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const u of uploads) {
    const r = await client.uploadImage(
      u.file,
      { subfolder: uploadSubfolder(jobId), overwrite: true },
      signal ? { signal } : {},
    );
    values[u.param] = r.subfolder ? `${r.subfolder}/${r.name}` : r.name;
  }
  return values;
}
