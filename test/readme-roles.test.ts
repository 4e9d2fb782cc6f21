/**
 * The README's table of what each role may do is the permission policy's own answer: built here
 * from `mayUse` for every role and method class, it must appear in README.md exactly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { METHOD_CLASSES, ROLES } from '../shared/people.js';
import { CLASS_WORDS, mayUse } from '../shared/permissions.js';
import { REPO } from './helpers/engine.js';

const CELL = { all: 'yes', own: 'own jobs', no: '—' } as const;

export function rolesTable(): string {
  const lines = [`| may … | ${ROLES.join(' | ')} |`, `|---|${ROLES.map(() => '---').join('|')}|`];
  for (const cls of METHOD_CLASSES) lines.push(`| ${CLASS_WORDS[cls]} (\`${cls}\`) | ${ROLES.map((r) => CELL[mayUse(r, cls)]).join(' | ')} |`);
  return lines.join('\n');
}

test("README's roles table is the permission policy's", () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  assert.ok(readme.includes(rolesTable()), `README.md should hold this table (Studio farm → People and roles):\n${rolesTable()}`);
});
