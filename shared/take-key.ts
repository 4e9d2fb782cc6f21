/**
 * A take's names: the one key every layer uses for "this take of this stage of this shot" — job ids
 * (UUIDv5 of it), output folders, object keys, import rows, job and asset views. Declared here only;
 * test/architecture-single-lists.test.ts fails on a second declaration of these five fields.
 */
export interface TakeKey {
  project: string;
  episode: string;
  shot: string;
  stage: string;
  take: number;
}
