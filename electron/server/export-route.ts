/**
 * `GET /api/export/:kind?from=…&to=…&project=…&episode=…&outcome=…`: a CSV export as a download.
 * The rows stream from the database to the browser (nothing is written on this machine's disk);
 * the file name carries the date and time. Access is checked like every /api route (server.ts).
 */
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { exportFileName, exportFilterFromQuery, exportFilterSchema, isExportKind } from '../../shared/exports.js';
import { describeIssues } from '../../shared/shot-list-schema.js';
import type { Engine } from '../engine/engine.js';
import { streamExport } from '../engine/exports/export-tables.js';
import { envelope, sendError } from './http-util.js';

export async function serveExport(engine: Engine, kind: string, query: URLSearchParams, res: ServerResponse, headOnly: boolean): Promise<void> {
  if (!isExportKind(kind)) return sendError(res, 404, envelope('not_found', `No export named ${kind.slice(0, 60)}; there are runlog and ledger.`));
  const filter = exportFilterSchema.safeParse(exportFilterFromQuery(query));
  if (!filter.success) return sendError(res, 400, envelope('bad_input', `The export's filters are not valid: ${describeIssues(filter.error).join('; ')}`));
  const name = exportFileName(kind, new Date(engine.clock.now()));
  res.writeHead(200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${name}"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  if (headOnly) return void res.end();
  const csv = streamExport(engine.dbFile, kind, filter.data);
  try {
    await pipeline(csv.stream, res);
  } catch {
    // The browser went away (a cancelled download) or the read failed half-way: the response is
    // cut off, which the browser shows as a failed download rather than a short file.
    res.destroy();
  }
}
