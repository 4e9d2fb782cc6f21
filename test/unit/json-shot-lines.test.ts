// Row errors point at the line of their shot in the JSON file; the locator scans the file once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readJsonShotList } from '../../electron/engine/intake/json-shot-list.js';

test('each JSON row points at the line of its own "id", even when the id appears earlier in other fields', () => {
  const content = [
    '{ "project": "P", "episode": "E", "shots": [',
    '  { "description": "see \\"a\\" and shot_id", "shot_id": "b",',
    '    "id"  :  "a", "stage": "keyframe", "template": "t" },',
    '  {',
    '    "description": "b",',
    '    "id":"b", "stage": "keyframe", "template": "t" },',
    '  { "id": "a", "stage": "keyframe", "template": "t" },',
    '  { "id": "名 1", "stage": "keyframe", "template": "t" },',
    '  { "id": 7, "stage": "keyframe", "template": "t" }',
    '] }',
  ].join('\n');
  const rows = readJsonShotList(content, 'l.json', Date.UTC(2026, 11, 1)).rows;
  assert.deepEqual(
    rows.map((r) => r.line),
    [3, 6, 7, 8, null],
  );
});
