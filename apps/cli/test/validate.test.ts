import { copyFile, mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { memoryIo } from '../src/io.js';
import { binary, cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));

describe('karpenter-ts validate', () => {
  it('accepts valid NodePools and NodeClasses from YAML and JSON List files with exit 0 and a summary', async () => {
    const { code, stdout, stderr } = await cli('validate', `${fixtures}/valid`);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('✓ 3 objects valid (2 NodePool, 1 AKSNodeClass) in 2 files');
  });

  it('prints one line per problem as file:document field: message, then a summary, with exit 1', async () => {
    // Malformed YAML is written at run time: prettier checks the fixtures folder.
    const dir = await mkdtemp(join(tmpdir(), 'karpenter-validate-'));
    await copyFile(`${fixtures}/invalid/nodepools.yaml`, join(dir, 'nodepools.yaml'));
    await writeFile(
      join(dir, 'malformed.yaml'),
      'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: [broken\n',
    );
    const { code, stdout } = await cli('validate', dir);
    expect(code).toBe(1);
    const lines = stdout.trim().split('\n');
    const file = join(dir, 'nodepools.yaml');
    expect(lines).toContain(`${file}:1 spec.weight: must be at most 100, got 500`);
    expect(
      lines.some((l) =>
        l.startsWith(`${file}:1 spec.template.spec.requirements[0].operator: must be one of`),
      ),
    ).toBe(true);
    expect(lines).toContain(`${file}:3 spec.osDiskSizeGB: must be at least 30, got 5`);
    expect(lines.some((l) => l.startsWith(`${join(dir, 'malformed.yaml')}:1:5 `))).toBe(true);
    expect(lines.at(-1)).toMatch(
      /^✗ 4 problems in 3 documents \(2 objects checked in 2 files; 1 other object skipped\)$/,
    );
  });

  it('reports the path inside a List for objects read from one', async () => {
    const list = JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          apiVersion: 'karpenter.sh/v1',
          kind: 'NodePool',
          metadata: { name: 'x' },
          spec: {
            weight: 0,
            template: {
              spec: {
                requirements: [],
                nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'd' },
              },
            },
          },
        },
      ],
    });
    const io = memoryIo();
    const { loadManifests } = await import('../src/manifests/load.js');
    const loaded = await loadManifests(['-'], async () => list);
    expect(loaded.documents[0]!.path).toBe('items[0]');
    const { validateDocuments, formatProblem } =
      await import('../src/validation/validate-documents.js');
    const { createCloud } = await import('../src/clouds/select.js');
    const report = validateDocuments(loaded.documents, [createCloud('azure', undefined)]);
    expect(report.problems.map(formatProblem)).toEqual([
      '<stdin>:1 items[0].spec.weight: must be at least 1, got 0',
    ]);
    expect(io.stdout).toBe('');
  });

  it('names the kind a misspelt kind is near, in karpenter.sh and in the provider group', async () => {
    const file = await writeManifests(
      'apiVersion: karpenter.azure.com/v1beta1\nkind: AKSNodeclass\nmetadata: {name: d}\nspec: {}\n',
      'apiVersion: karpenter.sh/v1\nkind: Nodepool\nmetadata: {name: p}\nspec: {}\n',
      'apiVersion: karpenter.azure.com/v1beta1\nkind: Machine\nmetadata: {name: m}\n',
    );
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(stdout.trim().split('\n').slice(0, -1)).toEqual([
      `${file}:1 kind: no CRD known for apiVersion "karpenter.azure.com/v1beta1" kind "AKSNodeclass"; did you mean "AKSNodeClass"?`,
      `${file}:2 kind: no CRD known for apiVersion "karpenter.sh/v1" kind "Nodepool"; did you mean "NodePool"?`,
      `${file}:3 kind: no CRD known for apiVersion "karpenter.azure.com/v1beta1" kind "Machine"`,
    ]);
  });

  it('gives the JSON report with --output json', async () => {
    const { code, stdout } = await cli(
      'validate',
      `${fixtures}/invalid/nodepools.yaml`,
      '-o',
      'json',
    );
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as {
      files: number;
      checked: Record<string, number>;
      skipped: number;
      problems: { field: string }[];
    };
    expect(report.files).toBe(1);
    expect(report.checked).toEqual({ NodePool: 1, AKSNodeClass: 1 });
    expect(report.skipped).toBe(1);
    expect(report.problems.map((p) => p.field)).toContain('spec.weight');
  });

  it('fails with exit 1 and one line for a path that does not exist, and exit 2 without arguments', async () => {
    const missing = await cli('validate', '/no/such/file.yaml');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'karpenter-ts: error: /no/such/file.yaml: no such file or folder\n',
    );
    const usage = await cli('validate');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("missing required argument 'paths'");
  });
});

describe('karpenter-ts validate on the repository examples', () => {
  it('accepts every NodePool in examples/nodepools (exit 0)', async () => {
    const { code, stdout } = await cli('validate', '../../examples/nodepools');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^✓ \d+ objects? valid \(.*NodePool.*\) in \d+ files\n$/);
  });

  it('finds problems in every file of examples/invalid (exit 1), each as file:document[:line] field: message', async () => {
    const { code, stdout } = await cli('validate', '../../examples/invalid');
    expect(code).toBe(1);
    const lines = stdout.trim().split('\n');
    const problems = lines.slice(0, -1);
    for (const line of problems)
      expect(line).toMatch(/^\.\.\/\.\.\/examples\/invalid\/[\w.-]+\.yaml:\d+(:\d+)? \S/);
    const files = new Set(problems.map((l) => l.slice(0, l.indexOf(':'))));
    const expected = (await readdir('../../examples/invalid')).filter((f) =>
      /\.(ya?ml|json)$/.test(f),
    );
    expect(expected.length).toBeGreaterThan(0);
    for (const file of expected) expect(files).toContain(`../../examples/invalid/${file}`);
    expect(lines.at(-1)).toMatch(/^✗ \d+ problems in \d+ documents/);
  });
});

describe('the built karpenter-ts binary (dist/main.js, run as a child process)', () => {
  it('exits 0 on valid input', async () => {
    const { code, stdout } = await binary('validate', `${fixtures}/valid`);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^✓ 3 objects valid/);
  });

  it('exits 1 on invalid input and prints file:document field: message lines', async () => {
    const { code, stdout, stderr } = await binary('validate', `${fixtures}/invalid/nodepools.yaml`);
    expect(code).toBe(1);
    expect(stderr).toBe('');
    expect(stdout).toContain(
      `${fixtures}/invalid/nodepools.yaml:3 spec.osDiskSizeGB: must be at least 30, got 5\n`,
    );
  });

  it('exits 2 on a usage error, with no stack trace', async () => {
    const { code, stderr } = await binary('validate', '--no-such-flag', 'x');
    expect(code).toBe(2);
    expect(stderr).toContain("unknown option '--no-such-flag'");
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe('karpenter-ts validate on inputs that hold nothing or are malformed', () => {
  async function scratch(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'karpenter-ts-validate-'));
    for (const [name, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, name)), { recursive: true });
      await writeFile(join(dir, name), text);
    }
    return dir;
  }

  it('exits 1 with "no objects found in <path>" for an empty file, a comment-only file and a folder of them', async () => {
    const dir = await scratch({ 'empty.yaml': '', 'notes/comments.yaml': '# nothing here\n---\n' });
    for (const path of [join(dir, 'empty.yaml'), join(dir, 'notes/comments.yaml'), dir]) {
      const { code, stdout, stderr } = await cli('validate', path);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toBe(`karpenter-ts: error: no objects found in ${path}\n`);
    }
  });

  it('exits 1 with "no objects found" for a folder without YAML files', async () => {
    const dir = await scratch({ 'README.md': '# not YAML\n' });
    const { code, stderr } = await cli('validate', dir);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `karpenter-ts: error: no objects found in ${dir} (no .yaml, .yml or .json file in this folder)\n`,
    );
  });

  it('names a duplicate key and keeps its line', async () => {
    const dir = await scratch({
      'dup.yaml':
        'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: { name: a }\nspec:\n  weight: 1\nspec:\n  weight: 2\n',
    });
    const { code, stdout } = await cli('validate', join(dir, 'dup.yaml'));
    expect(code).toBe(1);
    expect(stdout.split('\n')[0]).toBe(
      `${join(dir, 'dup.yaml')}:1:6 duplicate key "spec" (a key may appear once per mapping)`,
    );
  });

  it('reports schema, CEL and runtime problems of a NodePool in one pass, each once', async () => {
    const dir = await scratch({
      'np.yaml': `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: np }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
      requirements:
        - { key: karpenter.k8s.aws/instance-cpu, operator: Gt, values: ["abc"] }
      taints:
        - { key: a, effect: NoSchedule }
        - { key: a, effect: NoSchedule }
`,
    });
    const file = join(dir, 'np.yaml');
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    const lines = stdout.trim().split('\n');
    expect(lines.slice(0, -1).sort()).toEqual(
      [
        `${file}:1 spec.template.spec.requirements[0]: a requirement with operator Gt, Lt, Gte or Lte needs exactly one value, a non-negative integer (rule could not be evaluated: a value it reads is not an integer)`,
        `${file}:1 spec.template.spec.taints[1]: duplicate taint a:NoSchedule: the same key and effect already appear at spec.template.spec.taints[0]`,
      ].sort(),
    );
    expect(lines.at(-1)).toMatch(/^✗ 2 problems in 1 document/);
  });
});

describe('karpenter-ts validate on wrong types', () => {
  it.each([
    ['requirements', 'Gte'],
    ['taints', 'Gte'],
  ])('names the field and the expected type when NodePool %s is a string', async (field, value) => {
    const file = await writeManifests(`apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: np }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.azure.com, kind: AKSNodeClass, name: default }
      ${field === 'requirements' ? '' : 'requirements: []'}
      ${field}: ${value}
`);
    const { code, stdout, stderr } = await cli('validate', file);
    expect(stderr).toBe('');
    expect(code).toBe(1);
    expect(stdout.trim().split('\n').slice(0, -1)).toEqual([
      `${file}:1 spec.template.spec.${field}: must be an array, got string "${value}"`,
    ]);
  });
});
