import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError, ManifestError } from '../src/errors.js';
import { loadManifests, loadManifestsStrict } from '../src/manifests/load.js';
import { parseManifestText } from '../src/manifests/parse.js';

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'karpenter-cli-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

describe('parseManifestText', () => {
  it('tags each object of a multi-document file with its 1-based document number', () => {
    const text = 'apiVersion: v1\nkind: A\n---\n# only a comment\n---\napiVersion: v1\nkind: B\n';
    const { documents, errors } = parseManifestText(text, 'f.yaml');
    expect(errors).toEqual([]);
    expect(documents.map((d) => [d.object.kind, d.document, d.path])).toEqual([
      ['A', 1, ''],
      ['B', 3, ''],
    ]);
  });

  it('flattens a List and a top-level array into their items with the item path', () => {
    const list = JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [{ apiVersion: 'v1', kind: 'Pod' }],
    });
    expect(parseManifestText(list, 'l.json').documents[0]).toMatchObject({
      document: 1,
      path: 'items[0]',
    });
    const array = JSON.stringify([
      { apiVersion: 'v1', kind: 'X' },
      { apiVersion: 'v1', kind: 'Y' },
    ]);
    expect(parseManifestText(array, 'a.json').documents.map((d) => d.path)).toEqual(['[0]', '[1]']);
  });

  it('reports malformed YAML as one line file:document:line and keeps the other documents', () => {
    const text =
      'apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: [B\nmetadata: {}\n---\napiVersion: v1\nkind: C\n';
    const { documents, errors } = parseManifestText(text, 'bad.yaml');
    expect(documents.map((d) => d.object.kind)).toEqual(['A', 'C']);
    expect(errors).toHaveLength(1);
    const message = errors[0]!.message;
    expect(message).toMatch(/^bad\.yaml:2:\d+ \S/);
    expect(message).not.toContain('\n');
  });

  it('reports duplicate keys by name with the line of the duplicate', () => {
    const { errors } = parseManifestText('apiVersion: v1\nkind: A\nkind: B\n', 'dup.yaml');
    expect(errors[0]?.message).toBe(
      'dup.yaml:1:3 duplicate key "kind" (a key may appear once per mapping)',
    );
  });

  it('lists the problems of a file in document order, whatever kind they are', () => {
    const text = 'apiVersion: v1\n---\nkind: [B\n---\napiVersion: v1\nkind: C\nkind: D\n';
    const { errors } = parseManifestText(text, 'o.yaml');
    expect(errors.map((e) => e.document)).toEqual([1, 2, 3]);
    expect(errors[0]?.message).toBe('o.yaml:1 kind: required: a non-empty string');
  });

  it('refuses a document nested 1,000 levels deep with the depth limit, on the line past it', () => {
    const deep = `apiVersion: v1\nkind: ConfigMap\ndata:\n  k: ${'['.repeat(1000)}${']'.repeat(1000)}\n`;
    const { documents, errors } = parseManifestText(
      `${deep}---\napiVersion: v1\nkind: B\n`,
      'd.yaml',
    );
    expect(documents.map((d) => d.object.kind)).toEqual(['B']);
    expect(errors.map((e) => e.message)).toEqual([
      'd.yaml:1:4 nested deeper than 256 levels of mappings and lists (karpenter-ts reads at most 256; Kubernetes objects need about 20)',
    ]);
  });

  it('refuses a self-referencing alias on its line instead of recursing into it', () => {
    const { documents, errors } = parseManifestText('&x [*x]\n', 'a.yaml');
    expect(documents).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual([
      'a.yaml:1:1 alias *x is inside the node its anchor &x names: a node cannot contain itself',
    ]);
  });

  it('refuses a !!merge tag on a value on its line, whatever field it is on', () => {
    const text =
      'apiVersion: karpenter.azure.com/v1beta1\nkind: !!merge AKSNodeClass\n---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: { name: !!merge p }\n';
    expect(parseManifestText(text, 'm.yaml').errors.map((e) => e.message)).toEqual([
      'm.yaml:1:2 the !!merge tag is only valid on a mapping key (<<), not on a value',
      'm.yaml:2:6 the !!merge tag is only valid on a mapping key (<<), not on a value',
    ]);
  });

  it('names the missing field when a document has no kind or apiVersion', () => {
    expect(parseManifestText('apiVersion: v1\nmetadata: {}\n', 'k.yaml').errors[0]?.message).toBe(
      'k.yaml:1 kind: required: a non-empty string',
    );
    expect(parseManifestText('- 1\n', 's.yaml').errors[0]?.message).toBe(
      's.yaml:1 [0]: expected a Kubernetes object (a mapping), got number',
    );
  });
});

describe('loadManifests', () => {
  it('walks folders recursively in sorted order, reading .yaml, .yml and .json only', async () => {
    const dir = await folder({
      'b.yaml': 'apiVersion: v1\nkind: B\n',
      'a/z.yml': 'apiVersion: v1\nkind: Z\n',
      'a/y.json': '{"apiVersion": "v1", "kind": "Y"}',
      'notes.txt': 'not a manifest',
      '.hidden/h.yaml': 'apiVersion: v1\nkind: H\n',
    });
    const result = await loadManifests([dir]);
    expect(result.documents.map((d) => d.object.kind)).toEqual(['Y', 'Z', 'B']);
    expect(result.files.map((f) => f.slice(dir.length + 1))).toEqual([
      'a/y.json',
      'a/z.yml',
      'b.yaml',
    ]);
  });

  it('reads a file named explicitly whatever its extension, and standard input for -', async () => {
    const dir = await folder({ 'pods.txt': 'apiVersion: v1\nkind: P\n' });
    const result = await loadManifests(
      [join(dir, 'pods.txt'), '-'],
      async () => 'apiVersion: v1\nkind: S\n',
    );
    expect(
      result.documents.map((d) => [d.object.kind, d.file.endsWith('pods.txt') || d.file]),
    ).toEqual([
      ['P', true],
      ['S', '<stdin>'],
    ]);
  });

  it('fails with one line for a missing path or an empty folder', async () => {
    await expect(loadManifests(['/no/such/path'])).rejects.toThrow(
      new CliError('/no/such/path: no such file or folder'),
    );
    const dir = await folder({ 'x.txt': '' });
    await expect(loadManifests([dir])).rejects.toThrow(
      /^no objects found in .* \(no \.yaml, \.yml or \.json file in this folder\)$/,
    );
  });

  it('strict loading raises the first malformed document', async () => {
    const dir = await folder({ 'x.yaml': 'apiVersion: v1\nkind: A\n---\nkind: : :\n' });
    const error = await loadManifestsStrict([dir]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManifestError);
    expect((error as ManifestError).document).toBe(2);
  });
});

describe('document numbers', () => {
  it('counts a comment-only section before the first --- as section 1, as a reader splitting on --- lines does', () => {
    const text =
      '# header comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\n---\n# only a comment\n---\napiVersion: v1\nkind: Secret\nmetadata: { name: b }\n';
    const { documents, errors } = parseManifestText(text, 'f.yaml');
    expect(errors).toEqual([]);
    expect(documents.map((d) => [d.object.kind, d.document])).toEqual([
      ['ConfigMap', 2],
      ['Secret', 4],
    ]);
    const bad = parseManifestText('# header\n---\nkind: [broken\n', 'g.yaml');
    expect(bad.errors.map((e) => e.document)).toEqual([2]);
  });

  it('starts at 1 with the first object when the file opens with ---', () => {
    const text = '---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\n';
    expect(parseManifestText(text, 'f.yaml').documents.map((d) => d.document)).toEqual([1]);
  });
});
