/**
 * The page's address, DOM-free: `#/<view>` and, in the queue, `#/queue/job/<id>` for the job drawer
 * (a link names the job, so it can be sent to someone or reloaded), and the queue's filter after a
 * `?` (`#/queue?view=failed&q=sh01`, lib/queue-address.ts), kept beside the drawer's job.
 */
import { isAppView, type AppView } from '../../shared/app-views.js';

export interface RoutePath {
  view: AppView;
  /** The job whose drawer is open (queue only). */
  jobId: string | null;
  /** The queue's filter as a query string without its `?` ('' for the default view; queue only). */
  params: string;
}

const JOB_ID = /^[0-9a-f-]{36}$/i;

export function parseHash(hash: string): RoutePath {
  const body = hash.replace(/^#\/?/, '');
  const q = body.indexOf('?');
  const [view, sub, id] = (q < 0 ? body : body.slice(0, q)).split('/');
  if (!isAppView(view)) return { view: 'queue', jobId: null, params: '' };
  if (view !== 'queue') return { view, jobId: null, params: '' };
  return {
    view,
    jobId: sub === 'job' && id && JOB_ID.test(id) ? id.toLowerCase() : null,
    params: q < 0 ? '' : body.slice(q + 1),
  };
}

export function hashOf(p: RoutePath): string {
  if (p.view !== 'queue') return `#/${p.view}`;
  const path = p.jobId ? `#/queue/job/${p.jobId}` : '#/queue';
  return p.params ? `${path}?${p.params}` : path;
}
