import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { manifestBytes, mutatedBytes, mutatedYaml } from '../src/index.js';

const DOCS = [
  { kind: 'A', metadata: { name: 'a' }, spec: { list: [1, 2], ref: { name: 'a' } } },
  { kind: 'B', metadata: { name: 'b' } },
];

describe('document mutations', () => {
  it('without mutations, the documents come back as they were', () => {
    const docs = parseAllDocuments(mutatedYaml(DOCS, [])).map((d) => d.toJS());
    expect(docs).toEqual(DOCS);
  });

  it('set, delete and add change the path they name, and raw YAML stands as written', () => {
    // Paths of document 0: kind, metadata, metadata.name, spec, spec.list, list[0], ...
    const text = mutatedYaml(DOCS, [
      { op: 'set', document: 0, path: 0, value: null },
      { op: 'delete', document: 0, path: 2 },
      { op: 'add', document: 1, path: 1, key: 'extra', value: 5 },
      { op: 'raw', document: 0, path: 4, raw: '&x [*x]' },
    ]);
    expect(text).toContain('list: &x [*x]');
    const [a, b] = parseAllDocuments(text).map((d) => d.toJS({ maxAliasCount: -1 }));
    expect(a.kind).toBeNull();
    expect(a.metadata).toEqual({});
    expect(b.metadata).toEqual({ name: 'b', extra: 5 });
    expect(DOCS[0]!.metadata).toEqual({ name: 'a' }); // the input is not changed
  });
});

describe('text mutations', () => {
  it('truncate keeps a prefix, binary splices bytes in, bom prefixes the UTF-8 mark', () => {
    expect(mutatedBytes('abcdef', [{ op: 'truncate', at: 0.5 }]).toString()).toBe('abc');
    expect([...mutatedBytes('ab', [{ op: 'binary', at: 0.5, bytes: [0, 255] }])]).toEqual([
      0x61, 0, 255, 0x62,
    ]);
    expect([...mutatedBytes('a', [{ op: 'bom' }])]).toEqual([0xef, 0xbb, 0xbf, 0x61]);
  });

  it('duplicate-line repeats a line, insert-line adds one', () => {
    expect(mutatedBytes('a: 1\nb: 2', [{ op: 'duplicate-line', at: 0 }]).toString()).toBe(
      'a: 1\na: 1\nb: 2',
    );
    expect(mutatedBytes('a: 1', [{ op: 'insert-line', at: 1, line: '---' }]).toString()).toBe(
      'a: 1\n---',
    );
  });

  it('repeat makes copies as documents; renamed suffixes every name: value by the copy', () => {
    const bytes = manifestBytes(DOCS, [], [{ op: 'repeat', copies: 3, renamed: true }]);
    const docs = parseAllDocuments(bytes.toString()).map((d) => d.toJS());
    expect(docs).toHaveLength(6);
    expect(docs.map((d) => d.metadata.name)).toEqual(['a-0', 'b-0', 'a-1', 'b-1', 'a-2', 'b-2']);
    expect(docs[2].spec.ref.name).toBe('a-1');
  });

  it('repeat stops at 8 MiB of copies', () => {
    const long = 'x'.repeat(2 ** 20);
    const bytes = mutatedBytes(long, [{ op: 'repeat', copies: 3000, renamed: false }]);
    expect(bytes.length).toBeLessThanOrEqual(8 * 2 ** 20 + 8 * 5);
    expect(bytes.length).toBeGreaterThan(7 * 2 ** 20);
  });
});
