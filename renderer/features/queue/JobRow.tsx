/** One queue row, subscribed to its own job, progress and selection only (a change re-renders one row). */
import { memo, type MouseEvent } from 'react';
import { isNextUp } from '../../../shared/domain.js';
import { MiddleCut } from '../../components/MiddleCut.js';
import { StatePill } from '../../components/StatePill.js';
import { useRoute } from '../../lib/route.js';
import { useApp } from '../../store/app-store.js';
import { withPeople } from '../../lib/permissions.js';
import { ElapsedCell, EtaCell, ProgressCell } from './ProgressCell.js';

interface Props {
  index: number;
  id: string | undefined;
  top: number;
  height: number;
  onClick: (index: number, e: MouseEvent) => void;
}

export const JobRow = memo(function JobRow({ index, id, top, height, onClick }: Props) {
  const job = useApp((s) => (id ? s.jobs[id] : undefined));
  const progress = useApp((s) => (id ? s.progress[id] : undefined));
  const selected = useApp((s) => (id ? s.selected.has(id) : false));
  const instance = useApp((s) => (job?.instanceId ? (s.instances[job.instanceId]?.name ?? null) : null));
  const open = useRoute().jobId === id;
  const people = useApp((s) => withPeople(s.session));
  const me = useApp((s) => s.session?.name);
  const style = { transform: `translateY(${top}px)`, height };
  if (!job) {
    return (
      <div className="row row-loading" style={style} aria-busy>
        <span className="skeleton" />
      </div>
    );
  }
  return (
    <div
      className={`row${selected ? ' row-selected' : ''}${open ? ' row-open' : ''}${job.priority === 'rush' ? ' row-rush' : ''}`}
      style={style}
      role="row"
      aria-selected={selected}
      data-job-id={job.id}
      data-shot={job.shot}
      data-stage={job.stage}
      data-state={job.state}
      data-index={index}
      onMouseDown={(e) => e.shiftKey && e.preventDefault()}
      onClick={(e) => onClick(index, e)}
    >
      <span className="cell cell-shot" title={`${job.project} / ${job.episode} / ${job.shot}`}>
        <MiddleCut text={job.shot} bold />
        <span className="muted small"> {job.episode}</span>
      </span>
      <span className="cell">{job.stage}</span>
      <span className="cell num">{job.take}</span>
      <span className="cell">
        <span className={`prio prio-${job.priority}`}>{job.priority}</span>
      </span>
      <span className="cell">
        <StatePill state={job.state} next={isNextUp(job)} />
      </span>
      <span className="cell truncate">{instance ?? <span className="muted">—</span>}</span>
      {people && (
        <span
          className={`cell truncate${job.importedBy === me ? ' mine' : ''}`}
          title={job.importedBy ? `Imported by ${job.importedBy}` : undefined}
          data-cell="imported-by"
        >
          {job.importedBy ?? <span className="muted">—</span>}
        </span>
      )}
      <span className="cell cell-progress">
        <ProgressCell job={job} progress={progress} />
      </span>
      <span className="cell num">
        <ElapsedCell job={job} />
      </span>
      <span className="cell num">
        <EtaCell job={job} progress={progress} />
      </span>
      <span className={`cell num${job.attempts > 1 ? ' warn' : ''}`}>
        {job.attempts}/{job.maxAttempts}
      </span>
    </div>
  );
});
