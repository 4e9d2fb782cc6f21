/**
 * The page's address, DOM-free: `#/<view>` and, in the queue, `#/queue/job/<id>` for the job drawer
 * (a link names the job, so it can be sent to someone or reloaded).
 */
import { isAppView, type AppView } from '../../shared/app-views.js';

export interface RoutePath {
  view: AppView;
  /** The job whose drawer is open (queue only). */
  jobId: string | null;
}

const JOB_ID = /^[0-9a-f-]{36}$/i;

export function parseHash(hash: string): RoutePath {
  const [view, sub, id] = hash.replace(/^#\/?/, '').split('/');
  if (!isAppView(view)) return { view: 'queue', jobId: null };
  return { view, jobId: view === 'queue' && sub === 'job' && id && JOB_ID.test(id) ? id.toLowerCase() : null };
}

export function hashOf(p: RoutePath): string {
  return p.jobId && p.view === 'queue' ? `#/queue/job/${p.jobId}` : `#/${p.view}`;
}
