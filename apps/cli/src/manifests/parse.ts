/**
 * Parsing of manifest text: multi-document YAML (JSON is YAML, so `.json` files go through the
 * same parser), `kind: *List` objects and top-level arrays flattened into their items.
 */
import { parseManifests } from '@karpenter-ts/api';
import { ManifestError } from '../errors.js';
import type { KubeObject, ManifestDocument } from './document.js';

/** What parsing a file produced: the objects, and one error per malformed document or object. */
export interface ParseResult {
  documents: ManifestDocument[];
  errors: ManifestError[];
}

/**
 * Parses every YAML document of `text` (the contents of `file`) with @karpenter-ts/api's
 * `parseManifests`. A document with a YAML problem yields one {@link ManifestError}
 * `file:document:line problem` (first problem of the document; line is the file line, from 1)
 * and no objects; the other documents still parse. Empty documents are skipped. Each object
 * must be a mapping with string `apiVersion` and `kind`, else a ManifestError naming the field.
 * YAML 1.2 core schema plus YAML 1.1 `<<` merge keys, which kubectl resolves (Kubernetes' own
 * decoder is YAML 1.1: unquoted `yes`/`on` and `0644` differ, none of which matters for
 * scheduling fields).
 */
export function parseManifestText(text: string, file: string): ParseResult {
  const result: ParseResult = { documents: [], errors: [] };
  const parsed = parseManifests(text, { keepNonObjects: true, maxAliasCount: 1000 });
  const first = 1 + commentPreludeSections(text);
  const reported = new Set<number>();
  for (const violation of parsed.violations) {
    if (reported.has(violation.document)) continue;
    reported.add(violation.document);
    const detail =
      violation.rule === 'duplicate-key'
        ? `${violation.problem} (a key may appear once per mapping)`
        : violation.problem;
    result.errors.push(
      new ManifestError(file, violation.document + first, detail, undefined, violation.line),
    );
  }
  for (const manifest of parsed.manifests)
    collectObjects(manifest.object, file, manifest.document + first, '', result);
  // In document order, whichever step found the problem (a stable sort keeps each document's own order).
  result.errors.sort((a, b) => a.document - b.document);
  return result;
}

/**
 * 1 when `text` opens with comment lines (blank lines allowed) and then a `---` line, else 0.
 * YAML attaches such a comment to the document after the `---`, but a reader (and kubectl's
 * reader, which splits files on `---` lines) sees a section of its own there; counting it keeps
 * `file:3` the third `---`-separated section. A file that opens with `---` has no such section.
 */
function commentPreludeSections(text: string): number {
  let comments = 0;
  for (const line of text.split(/\r?\n/)) {
    if (/^---(\s|$)/.test(line)) return comments > 0 ? 1 : 0;
    if (/^\s*#/.test(line)) comments++;
    else if (line.trim() !== '') return 0;
  }
  return 0;
}

function collectObjects(
  value: unknown,
  file: string,
  document: number,
  path: string,
  out: ParseResult,
): void {
  if (value === null || value === undefined) return; // an empty document or a `~` item
  if (Array.isArray(value)) {
    value.forEach((item, i) => collectObjects(item, file, document, `${path}[${i}]`, out));
    return;
  }
  if (typeof value !== 'object') {
    out.errors.push(
      new ManifestError(
        file,
        document,
        `expected a Kubernetes object (a mapping), got ${typeof value}`,
        path || undefined,
      ),
    );
    return;
  }
  const object = value as Record<string, unknown>;
  for (const key of ['apiVersion', 'kind'] as const) {
    if (typeof object[key] !== 'string' || object[key] === '') {
      // kubectl writes a List's `kind: List` after its items: a List without it was cut short.
      const truncated =
        key === 'kind' && object[key] === undefined && Array.isArray(object.items)
          ? ' (this document has items but no kind: kubectl writes "kind: List" after the items, so the file looks truncated)'
          : '';
      out.errors.push(
        new ManifestError(
          file,
          document,
          `required: a non-empty string${truncated}`,
          path ? `${path}.${key}` : key,
        ),
      );
      return;
    }
  }
  if (
    object.metadata !== undefined &&
    (typeof object.metadata !== 'object' || object.metadata === null)
  ) {
    out.errors.push(
      new ManifestError(
        file,
        document,
        'must be a mapping',
        path ? `${path}.metadata` : 'metadata',
      ),
    );
    return;
  }
  const kind = object.kind as string;
  // `v1/List` and typed lists (`NodePoolList`) hold their objects in `items`.
  if (kind.endsWith('List') && Array.isArray(object.items)) {
    object.items.forEach((item, i) =>
      collectObjects(item, file, document, `${path ? `${path}.` : ''}items[${i}]`, out),
    );
    return;
  }
  out.documents.push({ file, document, path, object: object as KubeObject });
}
