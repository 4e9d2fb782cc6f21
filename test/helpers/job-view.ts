/** A whole JobView for tests that hand one to a consumer (hooks, notifications): a completed job, changed by `over`. */
import type { JobView } from '../../shared/domain.js';

export function jobViewFixture(over: Partial<JobView> = {}): JobView {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    project: 'P',
    episode: 'E',
    shot: 's',
    stage: 'k',
    take: 1,
    template: 't',
    priority: 'normal',
    rank: 0,
    state: 'completed',
    stateReason: null,
    errorClass: null,
    attempts: 1,
    maxAttempts: 3,
    instanceId: null,
    dependsOn: null,
    seed: 1,
    vramGb: 8,
    tags: [],
    blocked: false,
    waitReason: null,
    progress: null,
    attempt: null,
    contact: null,
    enqueuedAt: 1,
    startedAt: 2,
    finishedAt: 3,
    updatedAt: 3,
    ...over,
  };
}
