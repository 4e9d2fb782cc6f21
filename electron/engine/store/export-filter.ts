/** The filters shared by the run-log and ledger exports, turned into a WHERE clause with named parameters. */
export interface ExportFilter {
  from?: number | undefined;
  to?: number | undefined;
  project?: string | undefined;
  episode?: string | undefined;
  outcome?: string | undefined;
}

export function whereClause(
  f: ExportFilter,
  cols: { time: string; project: string; episode: string; outcome?: string },
): { sql: string; params: Record<string, unknown> } {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  if (f.from !== undefined) {
    parts.push(`${cols.time} >= @from`);
    params.from = f.from;
  }
  if (f.to !== undefined) {
    parts.push(`${cols.time} < @to`);
    params.to = f.to;
  }
  if (f.project) {
    parts.push(`${cols.project} = @project`);
    params.project = f.project;
  }
  if (f.episode) {
    parts.push(`${cols.episode} = @episode`);
    params.episode = f.episode;
  }
  if (f.outcome && cols.outcome) {
    parts.push(`${cols.outcome} = @outcome`);
    params.outcome = f.outcome;
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}
