// The one CSV writer of the exports and the release manifest: RFC 4180 quoting, CRLF records, and
// cells a spreadsheet would run as formulas neutralised.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { csvRecord } from '../../electron/engine/exports/csv-export.js';

test('a CSV record quotes only fields with quotes, commas or line breaks, and ends with CRLF', () => {
  assert.equal(
    csvRecord(['plain', 12, 1.5, null, undefined, 'a,b', 'say "hi"', 'two\nlines', 'cr\rhere']),
    'plain,12,1.5,,,"a,b","say ""hi""","two\nlines","cr\rhere"\r\n',
  );
});

test('formula-like text cells are prefixed with a quote mark; numbers are left alone', () => {
  assert.equal(csvRecord(['=SUM(A1)', '+1', '-x', '@cmd', -3]), "'=SUM(A1),'+1,'-x,'@cmd,-3\r\n");
});

test('records read back with a standard CSV parser, field for field', () => {
  const rows = [
    ['shot', 'note'],
    ['镜头 12', 'Épisode "deux", take 3\r\nretake'],
    ['kadras', ''],
  ];
  const text = rows.map(csvRecord).join('');
  assert.deepEqual(parse(text, { record_delimiter: '\r\n' }), rows);
});
