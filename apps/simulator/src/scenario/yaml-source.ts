/**
 * A YAML file read with its line numbers: the data, and the line of any field path in it, so a
 * problem found in the data can name the line it is on.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { ScenarioProblem } from './problems.js';

/** A parsed YAML document and the lines of its nodes. */
export interface YamlSource {
  readonly file: string;
  /** The document as plain data (undefined when it had YAML errors). */
  readonly data: unknown;
  /** YAML syntax problems (duplicate keys, bad indentation, tabs, ...), with their lines. */
  readonly problems: readonly ScenarioProblem[];
  /**
   * The line of the node at `path` (a mapping entry's key line), or of its nearest existing
   * parent when it is missing (a required field), or 1.
   */
  lineOf(path: readonly (string | number)[]): number;
}

/** Reads one YAML document (a scenario holds one). Never throws for bad YAML. */
export function readYaml(text: string, file: string): YamlSource {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const problems: ScenarioProblem[] = [...doc.errors, ...doc.warnings].map((e) => ({
    file,
    line: lines.linePos(e.pos[0]).line,
    field: '',
    message:
      e.code === 'MULTIPLE_DOCS'
        ? 'a scenario is one YAML document and this file holds several (a manifest file? a scenario names those under `manifests:`)'
        : `YAML: ${(e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}`,
  }));
  let data: unknown;
  if (doc.errors.length === 0) {
    try {
      data = doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      problems.push({ file, line: 1, field: '', message: `YAML: ${(error as Error).message}` });
    }
  }
  return {
    file,
    data,
    problems,
    lineOf: (path) => lineOf(doc, lines, path),
  };
}

function lineOf(doc: Document, lines: LineCounter, path: readonly (string | number)[]): number {
  let node: unknown = doc.contents;
  let line = rangeLine(node, lines) ?? 1;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => isScalar(p.key) && String(p.key.value) === String(segment),
      );
      if (pair === undefined) return line;
      line = rangeLine(pair.key, lines) ?? line;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      if (item === undefined) return line;
      line = rangeLine(item, lines) ?? line;
      node = item;
    } else return line;
  }
  return line;
}

function rangeLine(node: unknown, lines: LineCounter): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? lines.linePos(range[0]).line : undefined;
}
