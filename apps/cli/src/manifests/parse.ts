/**
 * Parsing of manifest text: multi-document YAML (JSON is YAML, so `.json` files go through the
 * same parser), `kind: *List` objects and top-level arrays flattened into their items.
 */
import { isScalar, parseAllDocuments, visit, type Document } from 'yaml';
import { ManifestError } from '../errors.js';
import type { KubeObject, ManifestDocument } from './document.js';

/** What parsing a file produced: the objects, and one error per malformed document or object. */
export interface ParseResult {
  documents: ManifestDocument[];
  errors: ManifestError[];
}

/**
 * Parses every YAML document of `text` (the contents of `file`). A document with a syntax
 * error yields one {@link ManifestError} `file:document:line message` (first error of the
 * document; line is the file line, from 1) and no objects; the other documents still parse.
 * Empty documents are skipped. Each object must be a mapping with string `apiVersion` and
 * `kind`, else a ManifestError naming the field. YAML 1.2 core schema, like the `yaml`
 * library's default (Kubernetes' own decoder is YAML 1.1: unquoted `yes`/`on` and `0644` differ,
 * none of which matters for scheduling fields).
 */
export function parseManifestText(text: string, file: string): ParseResult {
  const result: ParseResult = { documents: [], errors: [] };
  const docs = parseAllDocuments(text, { prettyErrors: true });
  // parseAllDocuments returns an EmptyStream (not an array) for a file with no documents.
  if (!Array.isArray(docs)) return result;
  docs.forEach((doc, i) => {
    const number = i + 1;
    const error = doc.errors[0];
    if (error) {
      const first =
        error.code === 'DUPLICATE_KEY'
          ? duplicateKeyMessage(doc, error.pos[0])
          : (error.message.split('\n')[0] ?? error.code).replace(/ at line \d+, column \d+:?$/, '');
      result.errors.push(
        new ManifestError(file, number, first, undefined, error.linePos?.[0]?.line),
      );
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (cause) {
      result.errors.push(
        new ManifestError(
          file,
          number,
          `cannot read document: ${(cause as Error).message}`,
          undefined,
          undefined,
          {
            cause,
          },
        ),
      );
      return;
    }
    collectObjects(value, file, number, '', result);
  });
  return result;
}

/**
 * `duplicate key "spec" (a key may appear once per mapping)`: names the key of the pair starting
 * at `offset`, where the parser reports a duplicate (its own message does not name it).
 */
function duplicateKeyMessage(doc: Document.Parsed, offset: number): string {
  let key: string | undefined;
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && pair.key.range?.[0] === offset) {
        key = String(pair.key.value);
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return `duplicate key${key === undefined ? '' : ` ${JSON.stringify(key)}`} (a key may appear once per mapping)`;
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
      out.errors.push(
        new ManifestError(
          file,
          document,
          'required: a non-empty string',
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
