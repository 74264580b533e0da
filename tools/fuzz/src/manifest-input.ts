/**
 * A hostile manifest file made from valid documents: one to three document mutations, then
 * (half the time) one or two text mutations; with the mutations as data, so a failing input can
 * be printed and rebuilt.
 */
import fc from 'fast-check';
import { documentMutation, mutatedYaml, type DocumentMutation } from './document-mutations.js';
import {
  mutatedBytes,
  textMutation,
  type RepeatRange,
  type TextMutation,
} from './text-mutations.js';

/** One fuzz input: the mutations and the file bytes they make. */
export interface ManifestInput {
  readonly documentMutations: readonly DocumentMutation[];
  readonly textMutations: readonly TextMutation[];
  /** The file: the mutated documents as YAML, then the text mutations. */
  readonly bytes: Buffer;
}

/** The file `documents` become under these mutations (what {@link manifestInput} generates). */
export function manifestBytes(
  documents: readonly unknown[],
  documentMutations: readonly DocumentMutation[],
  textMutations: readonly TextMutation[],
): Buffer {
  return mutatedBytes(mutatedYaml(documents, documentMutations), textMutations);
}

/** Options of {@link manifestInput}. */
export interface ManifestInputOptions {
  /**
   * How many copies a file-repeating text mutation makes (default 500 to 3,000: thousands of
   * documents); suites in `npm test` take fewer to stay cheap.
   */
  readonly copies?: RepeatRange;
}

/** Hostile manifest files made from `documents` (each a valid Kubernetes object). */
export function manifestInput(
  documents: readonly unknown[],
  options: ManifestInputOptions = {},
): fc.Arbitrary<ManifestInput> {
  return fc
    .tuple(
      fc.array(documentMutation(documents.length), { minLength: 1, maxLength: 3 }),
      fc.oneof(
        fc.constant([]),
        fc.array(textMutation(options.copies), { minLength: 1, maxLength: 2 }),
      ),
    )
    .map(([documentMutations, textMutations]) => ({
      documentMutations,
      textMutations,
      bytes: manifestBytes(documents, documentMutations, textMutations),
    }));
}

/**
 * How an input is shown in a failure report: its mutations as JSON with long strings cut to
 * 200 characters (a 100,000-character value would bury the report).
 */
export function describeInput(
  input: Pick<ManifestInput, 'documentMutations' | 'textMutations'>,
): string {
  return JSON.stringify(
    { documentMutations: input.documentMutations, textMutations: input.textMutations },
    (_key, value: unknown) =>
      typeof value === 'string' && value.length > 200
        ? `${value.slice(0, 200)}... (${value.length} characters)`
        : value,
  );
}
