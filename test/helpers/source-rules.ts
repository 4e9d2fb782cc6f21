/**
 * For the architecture tests that hold a rule over the source text: run a rule over every file of a
 * tree, and read which lines of a planted fixture say they break it (`// VIOLATION`), so each rule
 * is shown to fire on a planted violation as well as to pass on the real tree.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './source-files.js';

/** What a rule says of one file: `line what` for each offending spot. */
export type SourceRule = (file: string, source: ts.SourceFile) => { line: number; what: string }[];

export function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
}

/** Every node of a file, depth first. */
export function eachNode(source: ts.SourceFile, visit: (n: ts.Node) => void): void {
  const walk = (n: ts.Node): void => {
    visit(n);
    ts.forEachChild(n, walk);
  };
  walk(source);
}

export function lineOf(source: ts.SourceFile, n: ts.Node): number {
  return source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1;
}

/** `file:line what` for every offence under `root/under`, files named by their path from `root`; `exempt` files are skipped. */
export function offences(
  root: string,
  under: string,
  rule: SourceRule,
  exempt: (file: string) => boolean = () => false,
): string[] {
  return sourceFiles(join(root, under))
    .map((full) => relative(root, full))
    .filter((file) => !exempt(file))
    .flatMap((file) =>
      rule(file, parse(file, readFileSync(join(root, file), 'utf8'))).map((o) => `${file}:${o.line} ${o.what}`),
    )
    .sort();
}

/** `file:line` of each line marked `// VIOLATION` under `root` (a planted fixture). */
export function plantedLines(root: string): string[] {
  return sourceFiles(root)
    .flatMap((full) =>
      readFileSync(full, 'utf8')
        .split('\n')
        .flatMap((l, i) => (l.includes('// VIOLATION') ? [`${relative(root, full)}:${i + 1}`] : [])),
    )
    .sort();
}

/** The `file:line` of each offence, once per line. */
export function offendingLines(found: readonly string[]): string[] {
  return [...new Set(found.map((o) => o.split(' ')[0] as string))].sort();
}
