/**
 * The manual's table of what each role may do is the permission policy's own answer: built here
 * from `mayUse` for every role and method class, it must appear in docs/studio-farm.md exactly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { METHOD_CLASSES, ROLES } from '../../shared/people.js';
import { CLASS_WORDS, mayUse } from '../../shared/permissions.js';
import { readRepoFile, section } from './markdown.js';

const CELL = { all: 'yes', own: 'own jobs', no: '—' } as const;

export function rolesTable(): string {
  const lines = [`| may … | ${ROLES.join(' | ')} |`, `|---|${ROLES.map(() => '---').join('|')}|`];
  for (const cls of METHOD_CLASSES)
    lines.push(`| ${CLASS_WORDS[cls]} (\`${cls}\`) | ${ROLES.map((r) => CELL[mayUse(r, cls)]).join(' | ')} |`);
  return lines.join('\n');
}

test("docs/studio-farm.md's roles table is the permission policy's", () => {
  const roles = section(readRepoFile('docs/studio-farm.md'), 'People and roles');
  assert.ok(
    roles.includes(rolesTable()),
    `docs/studio-farm.md should hold this table (People and roles):\n${rolesTable()}`,
  );
});
