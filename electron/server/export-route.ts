/**
 * `GET /api/export/:kind?from=…&to=…&project=…&episode=…&outcome=…`: a CSV export as a download.
 * The rows stream from the database to the browser (nothing is written on this machine's disk);
 * the file name carries the date and time. Access is checked like every /api route (server.ts), and
 * the engine applies the permission policy for the signed-in caller, as for `export.runlog`.
 */
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { exportFileName, exportFilterFromQuery, exportFilterSchema, isExportKind } from '../../shared/exports.js';
import { ShotfarmError } from '../../shared/errors.js';
import type { Caller } from '../../shared/people.js';
import { describeIssues } from '../../shared/shot-list-schema.js';
import type { Engine } from '../engine/engine.js';
import type { CsvStream } from '../engine/exports/csv-export.js';
import { envelope, sendError, STATUS_FOR_CODE } from '../engine/hosting/http-util.js';

export async function serveExport(
  engine: Engine,
  kind: string,
  query: URLSearchParams,
  res: ServerResponse,
  headOnly: boolean,
  caller: Caller,
): Promise<void> {
  if (!isExportKind(kind))
    return sendError(
      res,
      404,
      envelope('not_found', `No export named ${kind.slice(0, 60)}; there are runlog and ledger.`),
    );
  const filter = exportFilterSchema.safeParse(exportFilterFromQuery(query));
  if (!filter.success)
    return sendError(
      res,
      400,
      envelope('bad_input', `The export's filters are not valid: ${describeIssues(filter.error).join('; ')}`),
    );
  let csv: CsvStream;
  try {
    // Refused before a header is sent (an artist's download is a 403, not an empty file).
    csv = engine.streamExport(kind, filter.data, caller);
  } catch (err) {
    if (err instanceof ShotfarmError) return sendError(res, STATUS_FOR_CODE[err.code], envelope(err.code, err.message));
    throw err;
  }
  const name = exportFileName(kind, new Date(engine.clock.now()));
  res.writeHead(200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${name}"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  if (headOnly) {
    csv.stream.destroy();
    return void res.end();
  }
  try {
    await pipeline(csv.stream, res);
  } catch {
    // The browser went away (a cancelled download) or the read failed half-way: the response is
    // cut off, which the browser shows as a failed download rather than a short file.
    res.destroy();
  }
}
