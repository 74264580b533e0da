/**
 * Mutations of a manifest file's text and bytes, after its documents are written: a key line
 * duplicated, a hostile line inserted, binary bytes spliced in, the file cut short, or the
 * whole file repeated into thousands of documents.
 */
import fc from 'fast-check';

/** One mutation of a file; positions are fractions of its lines or bytes, so they always fit. */
export type TextMutation =
  | { op: 'duplicate-line'; at: number }
  | { op: 'insert-line'; at: number; line: string }
  | { op: 'binary'; at: number; bytes: number[] }
  | { op: 'truncate'; at: number }
  | { op: 'repeat'; copies: number; renamed: boolean }
  | { op: 'bom' };

/** Lines YAML or the readers after it take badly: directives, tags, tabs, odd keys, NUL. */
const HOSTILE_LINES = [
  '%YAML 1.1',
  '%TAG ! tag:example.com,2000:',
  '--- !!str',
  '--- |',
  '...',
  '---',
  '\tkey: tab',
  '? [a, b]',
  '? {a: 1}',
  ': no key',
  '- item at the top',
  'kind: Secret',
  'apiVersion: v1',
  '<<: *missing',
  '"\\u0000": nul',
  '{{ .Values.template }}',
  '  name: indented',
  '\u0000',
  '\u200b: zero width',
  '# comment',
];

/** How many copies a `repeat` text mutation makes. */
export interface RepeatRange {
  readonly min: number;
  readonly max: number;
}

/** Thousands of documents: 500 to 3,000 copies of a file of a few documents. */
export const THOUSANDS_OF_DOCUMENTS: RepeatRange = { min: 500, max: 3000 };

/**
 * A text mutation: mostly line and byte edits; 1 in 86 repeats the file `copies` times (at
 * most 8 MiB of it)
 * (`renamed`: every `name:` value suffixed by the copy's number, so the copies are distinct
 * objects that still reference each other).
 */
export function textMutation(
  copies: RepeatRange = THOUSANDS_OF_DOCUMENTS,
): fc.Arbitrary<TextMutation> {
  return fc.oneof(
    {
      weight: 20,
      arbitrary: fc
        .double({ min: 0, max: 1, noNaN: true })
        .map((at) => ({ op: 'duplicate-line' as const, at })),
    },
    {
      weight: 20,
      arbitrary: fc
        .tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(...HOSTILE_LINES))
        .map(([at, line]) => ({ op: 'insert-line' as const, at, line })),
    },
    {
      weight: 20,
      arbitrary: fc
        .tuple(
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 64 }),
        )
        .map(([at, bytes]) => ({ op: 'binary' as const, at, bytes })),
    },
    {
      weight: 20,
      arbitrary: fc
        .double({ min: 0, max: 1, noNaN: true })
        .map((at) => ({ op: 'truncate' as const, at })),
    },
    { weight: 5, arbitrary: fc.constant({ op: 'bom' as const }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer(copies), fc.boolean())
        .map(([copies, renamed]) => ({ op: 'repeat' as const, copies, renamed })),
    },
  );
}

/** The most bytes a `repeat` mutation makes. */
const MAX_REPEATED_BYTES = 8 * 2 ** 20;

const index = (fraction: number, length: number) =>
  Math.min(length, Math.max(0, Math.floor(fraction * length)));

/** The bytes of `text` (UTF-8) with `mutations` applied in order. */
export function mutatedBytes(text: string, mutations: readonly TextMutation[]): Buffer {
  let bytes = Buffer.from(text, 'utf8');
  for (const m of mutations) {
    if (m.op === 'binary') {
      const at = index(m.at, bytes.length);
      bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(m.bytes), bytes.subarray(at)]);
    } else if (m.op === 'truncate') {
      bytes = bytes.subarray(0, index(m.at, bytes.length));
    } else if (m.op === 'bom') {
      bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
    } else {
      // Line edits work on the text as decoded so far (binary bytes may have become U+FFFD).
      const lines = bytes.toString('utf8').split('\n');
      if (m.op === 'duplicate-line') {
        const at = index(m.at, lines.length - 1);
        lines.splice(at, 0, lines[at] ?? '');
        bytes = Buffer.from(lines.join('\n'), 'utf8');
      } else if (m.op === 'insert-line') {
        lines.splice(index(m.at, lines.length), 0, m.line);
        bytes = Buffer.from(lines.join('\n'), 'utf8');
      } else {
        const whole = lines.join('\n');
        // At most 8 MiB of copies: thousands of documents, not a 300 MB file of long strings.
        const count = Math.max(
          1,
          Math.min(m.copies, Math.floor(MAX_REPEATED_BYTES / whole.length)),
        );
        const copies = Array.from({ length: count }, (_, i) =>
          m.renamed ? whole.replace(/^(\s*(?:- )?name: )(\S+)$/gm, `$1$2-${i}`) : whole,
        );
        bytes = Buffer.from(copies.join('\n---\n'), 'utf8');
      }
    }
  }
  return bytes;
}
