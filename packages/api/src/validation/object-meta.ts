/**
 * The ObjectMeta checks the apiserver makes on every custom resource before its schema and
 * rules (apimachinery's object meta validation): a valid name, label keys and values,
 * annotation keys and their total size, finalizer names, and complete owner references.
 */
import { labelValueProblem, qualifiedNameProblem } from '../runtime-validation.js';
import { isPlainObject } from './schema-nodes.js';
import type { PathSegment } from './violation.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The apiserver's limit on the summed size of an object's annotation keys and values. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** One metadata problem: where, and why (one line). */
export type MetadataProblem = [PathSegment[], string];

/** Every problem of `metadata` the apiserver refuses; `[]` when it is fine. */
export function objectMetaViolations(metadata: unknown): MetadataProblem[] {
  if (!isPlainObject(metadata))
    return [[['metadata'], 'metadata is required and must be a mapping (with at least a name)']];
  return [
    ...nameProblems(metadata),
    ...labelProblems(metadata.labels),
    ...annotationProblems(metadata.annotations),
    ...finalizerProblems(metadata.finalizers),
    ...ownerReferenceProblems(metadata.ownerReferences),
  ];
}

function nameProblems(metadata: Record<string, unknown>): MetadataProblem[] {
  const name = metadata.name;
  if (name === undefined || name === null) {
    return typeof metadata.generateName === 'string'
      ? []
      : [[['metadata', 'name'], 'required field is missing']];
  }
  if (typeof name !== 'string') return [[['metadata', 'name'], 'must be a string']];
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    return [
      [
        ['metadata', 'name'],
        `${JSON.stringify(name)} is not a valid name (lowercase letters, digits, "-" and ".", at most 253 characters, starting and ending with a letter or digit)`,
      ],
    ];
  }
  return [];
}

/** The entries of a string map field, or a type problem; a null or missing map has none. */
function stringMap(
  value: unknown,
  field: string,
): { entries: Array<[string, unknown]>; problems: MetadataProblem[] } {
  if (value === undefined || value === null) return { entries: [], problems: [] };
  if (!isPlainObject(value))
    return { entries: [], problems: [[['metadata', field], 'must be a mapping of strings']] };
  return { entries: Object.entries(value), problems: [] };
}

function labelProblems(labels: unknown): MetadataProblem[] {
  const { entries, problems } = stringMap(labels, 'labels');
  for (const [key, value] of entries) {
    const path: PathSegment[] = ['metadata', 'labels', key];
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem)
      problems.push([path, `label key ${JSON.stringify(key)} is invalid: ${keyProblem}`]);
    // A null value decodes as "" (ObjectMeta holds strings), which is a valid label value.
    if (value === null) continue;
    if (typeof value !== 'string') problems.push([path, 'a label value must be a string']);
    else {
      const valueProblem = labelValueProblem(value);
      if (valueProblem)
        problems.push([path, `label value ${JSON.stringify(value)} is invalid: ${valueProblem}`]);
    }
  }
  return problems;
}

function annotationProblems(annotations: unknown): MetadataProblem[] {
  const { entries, problems } = stringMap(annotations, 'annotations');
  let size = 0;
  for (const [key, value] of entries) {
    const path: PathSegment[] = ['metadata', 'annotations', key];
    // The apiserver checks annotation keys in lower case: upper-case letters are allowed there.
    const keyProblem = qualifiedNameProblem(key.toLowerCase());
    if (keyProblem)
      problems.push([path, `annotation key ${JSON.stringify(key)} is invalid: ${keyProblem}`]);
    if (value !== null && typeof value !== 'string')
      problems.push([path, 'an annotation value must be a string']);
    size += key.length + (typeof value === 'string' ? value.length : 0);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT)
    problems.push([
      ['metadata', 'annotations'],
      `annotations may hold at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes in all, got ${size}`,
    ]);
  return problems;
}

function finalizerProblems(finalizers: unknown): MetadataProblem[] {
  if (finalizers === undefined || finalizers === null) return [];
  if (!Array.isArray(finalizers))
    return [[['metadata', 'finalizers'], 'must be a list of finalizer names']];
  const problems: MetadataProblem[] = [];
  finalizers.forEach((f: unknown, i) => {
    const path: PathSegment[] = ['metadata', 'finalizers', i];
    if (typeof f !== 'string') problems.push([path, 'a finalizer name must be a string']);
    else {
      const problem = qualifiedNameProblem(f);
      if (problem)
        problems.push([path, `finalizer name ${JSON.stringify(f)} is invalid: ${problem}`]);
    }
  });
  return problems;
}

function ownerReferenceProblems(refs: unknown): MetadataProblem[] {
  if (refs === undefined || refs === null) return [];
  if (!Array.isArray(refs))
    return [[['metadata', 'ownerReferences'], 'must be a list of owner references']];
  const problems: MetadataProblem[] = [];
  let controllers = 0;
  refs.forEach((ref: unknown, i) => {
    const path: PathSegment[] = ['metadata', 'ownerReferences', i];
    if (!isPlainObject(ref)) {
      problems.push([path, 'an owner reference must be a mapping']);
      return;
    }
    for (const field of ['apiVersion', 'kind', 'name', 'uid'] as const) {
      const value = ref[field];
      if (value !== undefined && value !== null && typeof value !== 'string')
        problems.push([[...path, field], 'must be a string']);
      else if (!value)
        problems.push([[...path, field], `an owner reference needs a non-empty ${field}`]);
    }
    if (ref.controller === true) controllers++;
  });
  if (controllers > 1)
    problems.push([
      ['metadata', 'ownerReferences'],
      `only one owner reference may set controller: true, got ${controllers}`,
    ]);
  return problems;
}
