/**
 * Job ids are UUIDv5 of project/episode/shot/stage/take (SPEC §2): importing the same list twice
 * yields the same ids (nothing new is created), and a new take is a new id. The id is also the
 * ComfyUI prompt_id of every attempt, so any attempt can find its prompt on a server.
 */
import { v5 as uuidv5, v4 as uuidv4 } from 'uuid';

/** Fixed namespace for Shotfarm job ids. Never change it: every stored id depends on it. */
export const JOB_ID_NAMESPACE = '6f1c1b0e-3d4a-5c2e-9b7f-5a8e2d4c1f30';

export interface JobKey {
  project: string;
  episode: string;
  shot: string;
  stage: string;
  take: number;
}

export function jobId(key: JobKey): string {
  // A separator that cannot occur in names (names reject control characters).
  const name = [key.project, key.episode, key.shot, key.stage, String(key.take)].join('\u001f');
  return uuidv5(name, JOB_ID_NAMESPACE);
}

/** Random ids for attempts, assets, previews and instances. */
export function randomId(): string {
  return uuidv4();
}
