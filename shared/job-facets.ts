/**
 * Jobs counted by one field (`jobs.facets`): the queue's group tree (project → episode → sequence →
 * shot, a count per group) and the filters' suggestions (the projects or episodes that exist,
 * starting with what was typed). Re-exported by domain.ts.
 */

export const FACET_FIELDS = ['project', 'episode', 'sequence', 'shot', 'stage', 'template'] as const;
export type FacetField = (typeof FACET_FIELDS)[number];

/** One value of the field and how many of the matching jobs have it. */
export interface FacetValue {
  /** The value; '' for jobs without one (a shot code without a sequence). */
  value: string;
  count: number;
  running: number;
  /** Failed for good or timed out. */
  failed: number;
}

export interface JobFacets {
  by: FacetField;
  /** Most jobs first, then by value. */
  values: FacetValue[];
  /** More values exist than the limit let through. */
  more: boolean;
}
