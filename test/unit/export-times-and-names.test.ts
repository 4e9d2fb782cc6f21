import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isoWithOffset, spreadsheetWithOffset } from '../../electron/engine/exports/local-time.js';
import { exportFileName, exportFilterFromQuery, exportFilterToQuery } from '../../shared/exports.js';

const T = Date.UTC(2026, 11, 1, 9, 5, 7, 42);

test('export times are ISO 8601 with the local offset, and a spreadsheet-friendly local date-time', () => {
  const cases: [number, string, string][] = [
    [0, '2026-12-01T09:05:07.042+00:00', '2026-12-01 09:05:07'],
    [60, '2026-12-01T10:05:07.042+01:00', '2026-12-01 10:05:07'],
    [-300, '2026-12-01T04:05:07.042-05:00', '2026-12-01 04:05:07'],
    [330, '2026-12-01T14:35:07.042+05:30', '2026-12-01 14:35:07'],
    [-600, '2026-11-30T23:05:07.042-10:00', '2026-11-30 23:05:07'],
  ];
  for (const [offset, iso, local] of cases) {
    assert.equal(isoWithOffset(T, offset), iso);
    assert.equal(Date.parse(iso), T, `${iso} is the same instant`);
    assert.equal(spreadsheetWithOffset(T, offset), local);
  }
});

test('export file names carry the date and the time to the second, without colons', () => {
  const at = new Date(2026, 11, 1, 14, 3, 9);
  assert.equal(exportFileName('runlog', at), 'shotfarm-runlog-2026-12-01_14-03-09.csv');
  assert.equal(exportFileName('ledger', new Date(2026, 0, 2, 0, 0, 0)), 'shotfarm-ledger-2026-01-02_00-00-00.csv');
  assert.notEqual(exportFileName('runlog', at), exportFileName('runlog', new Date(2026, 11, 1, 14, 3, 10)));
});

test('an export filter survives the trip through URL query parameters (the download route)', () => {
  const f = {
    from: 1_700_000_000_000,
    to: 1_700_000_100_000,
    project: 'Moonfall',
    episode: 'ep 101',
    outcome: 'failed',
  };
  const q = exportFilterToQuery(f);
  q.set('ticket', 'a-files-ticket');
  assert.deepEqual(exportFilterFromQuery(new URLSearchParams(q.toString())), f);
  assert.deepEqual(exportFilterFromQuery(new URLSearchParams('from=yesterday')), { from: 'yesterday' });
});
