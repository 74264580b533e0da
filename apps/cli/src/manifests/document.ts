/**
 * One Kubernetes object read from a manifest file, tagged with where it came from.
 */

/** A Kubernetes object as read from YAML/JSON: `apiVersion` and `kind` are present strings. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata?: {
    name?: string;
    generateName?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/**
 * An object and its source: `file` as the user named it (or `<stdin>`), `document` its 1-based
 * position among the file's YAML documents (empty documents count, so the number matches the
 * n-th `---` section), and `path` the field path of the object inside that document when it came
 * from a `List` or a top-level array (`items[2]`, `[0]`), else `''`.
 */
export interface ManifestDocument {
  readonly file: string;
  readonly document: number;
  readonly path: string;
  readonly object: KubeObject;
}

/** `file:document` — the location prefix every message about this object starts with. */
export function location(doc: Pick<ManifestDocument, 'file' | 'document'>): string {
  return `${doc.file}:${doc.document}`;
}

/** Joins the object's path inside its document with a field path inside the object. */
export function fieldPath(doc: Pick<ManifestDocument, 'path'>, field: string): string {
  if (!doc.path) return field;
  if (!field) return doc.path;
  return field.startsWith('[') ? `${doc.path}${field}` : `${doc.path}.${field}`;
}

/** `Kind/name` (with `namespace/` for namespaced objects when a namespace is set). */
export function objectName(object: KubeObject): string {
  const meta = object.metadata ?? {};
  const name = meta.name ?? meta.generateName ?? '<unnamed>';
  return meta.namespace ? `${object.kind}/${meta.namespace}/${name}` : `${object.kind}/${name}`;
}
