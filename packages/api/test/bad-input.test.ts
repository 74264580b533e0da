/**
 * Bad input of every sort gives clear violations, never exceptions.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseManifests, validate, validateYaml } from '../src/index.js';
import { nodePool, withField } from './builders.js';

describe('YAML manifests', () => {
  test('malformed YAML is a yaml-syntax violation with its line', () => {
    const v = validateYaml('apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: [a\n', {
      fileName: 'np.yaml',
    });
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ rule: 'yaml-syntax', file: 'np.yaml', apiServer: 'none' });
    expect(v[0]?.line).toBeGreaterThanOrEqual(4);
  });

  test('a duplicate key is a duplicate-key violation on the line of the repeated key', () => {
    const v = validateYaml(
      'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: a\n  name: b\nspec: {}\n',
    );
    expect(v).toEqual([expect.objectContaining({ rule: 'duplicate-key', line: 5 })]);
  });

  test('a duplicate key violation names the key, also for a quoted key in a flow mapping', () => {
    const v = validateYaml(
      'apiVersion: karpenter.sh/v1\nkind: NodePool\nspec:\n  a: 1\nspec:\n  b: 2\nmetadata: {name: a, "name": b}\n',
    );
    expect(v.map((x) => [x.line, x.message])).toEqual([
      [
        5,
        'duplicate key "spec" (a key may appear once per mapping; kubectl rejects duplicate keys)',
      ],
      [
        7,
        'duplicate key "name" (a key may appear once per mapping; kubectl rejects duplicate keys)',
      ],
    ]);
  });

  test('violations point at the line of the offending field', () => {
    const text = [
      'apiVersion: karpenter.sh/v1',
      'kind: NodePool',
      'metadata:',
      '  name: lines',
      'spec:',
      '  weight: 500',
      '  template:',
      '    spec:',
      '      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}',
      '      requirements:',
      '        - key: kubernetes.io/arch',
      '          operator: Equals',
    ].join('\n');
    expect(validateYaml(text).map((v) => [v.path, v.line])).toEqual([
      ['spec.weight', 6],
      ['spec.template.spec.requirements[0].operator', 12],
    ]);
  });

  test('every document of a multi-document file is validated; empty documents are skipped', () => {
    const doc = (name: string, weight: number): string =>
      `apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: ${name}}\nspec:\n  weight: ${weight}\n  template: {spec: {nodeClassRef: {group: g, kind: K, name: n}, requirements: []}}\n`;
    const v = validateYaml(`---\n${doc('a', 5)}---\n---\n${doc('b', 0)}`);
    expect(v.map((x) => [x.name, x.path, x.rule])).toEqual([['b', 'spec.weight', 'minimum']]);
  });

  test('a document that is a list or a scalar is not-an-object', () => {
    expect(parseManifests('- a\n- b\n').violations).toEqual([
      expect.objectContaining({ rule: 'not-an-object', line: 1 }),
    ]);
    expect(validateYaml('just text').map((v) => v.rule)).toEqual(['not-an-object']);
  });

  test('parseManifests tells which document a problem is in and the problem without advice', () => {
    const text = 'apiVersion: v1\nkind: A\n---\nkind: B\nkind: C\n---\nkind: [D\n';
    const { manifests, violations } = parseManifests(text);
    expect(manifests.map((m) => [m.document, m.line])).toEqual([[0, 1]]);
    expect(violations.map((v) => [v.document, v.rule, v.line, v.problem])).toEqual([
      [1, 'duplicate-key', 5, 'duplicate key "kind"'],
      [2, 'yaml-syntax', 8, expect.stringMatching(/^\S/)],
    ]);
  });

  test('keepNonObjects keeps a top-level list as it is instead of reporting not-an-object', () => {
    expect(parseManifests('- a\n- b\n', { keepNonObjects: true })).toEqual({
      manifests: [{ object: ['a', 'b'], document: 0, line: 1 }],
      violations: [],
    });
  });

  test('maxAliasCount bounds how many aliases a document may resolve', () => {
    const text = `a: &x 1\nb: [${Array.from({ length: 150 }, () => '*x').join(', ')}]\n`;
    expect(parseManifests(text).violations).toEqual([
      expect.objectContaining({
        rule: 'yaml-syntax',
        document: 0,
        problem: expect.stringMatching(/^cannot read document: /),
      }),
    ]);
    expect(parseManifests(text, { maxAliasCount: 1000 }).violations).toEqual([]);
  });

  test('a document that refers to one anchor more than maxAliasCount times is refused on the alias past the limit, before it is composed', () => {
    // Found by the fuzz suite: 3,000 such documents took minutes and over 4 GB to refuse, since
    // the yaml library composed every alias before toJS counted them.
    const aliases = Array.from({ length: 1200 }, () => '*z').join(', ');
    const text = `kind: A\n---\nkind: B\nvalues:\n  - [&z 1, ${aliases}]\n---\nkind: C\n`;
    const { manifests, violations } = parseManifests(text);
    expect(violations).toEqual([
      expect.objectContaining({
        rule: 'yaml-syntax',
        document: 1,
        line: 5,
        problem:
          'cannot read document: an anchor is referenced more than 100 times (excessive aliasing, as in a resource exhaustion attack)',
      }),
    ]);
    expect(manifests.map((m) => (m.object as { kind: string }).kind)).toEqual(['A', 'C']);
  });

  test.each([
    ['flow lists', `a: ${'['.repeat(1000)}${']'.repeat(1000)}\n`, 1],
    ['flow mappings', `a: ${'{b: '.repeat(1000)}1${'}'.repeat(1000)}\n`, 1],
    [
      'block mappings',
      `${Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} 1\n`,
      257,
    ],
  ])(
    'refuses a document nested deeper than 256 levels (%s) on the line where it passes the limit',
    (_style, text, line) => {
      expect(parseManifests(`apiVersion: v1\nkind: ConfigMap\n---\n${text}`).violations).toEqual([
        expect.objectContaining({
          rule: 'too-deep',
          document: 1,
          line: line + 3,
          problem:
            'nested deeper than 256 levels of mappings and lists (karpenter-ts reads at most 256; Kubernetes objects need about 20)',
        }),
      ]);
    },
  );

  test('reads a document nested exactly 256 levels deep', () => {
    const text = `a: ${'['.repeat(255)}${']'.repeat(255)}\n`;
    expect(parseManifests(text)).toEqual({
      manifests: [expect.objectContaining({ document: 0 })],
      violations: [],
    });
  });

  test('maxDepth sets the nesting limit', () => {
    expect(parseManifests('a: [[1]]\n', { maxDepth: 2 }).violations).toEqual([
      expect.objectContaining({
        rule: 'too-deep',
        problem: expect.stringMatching(/^nested deeper than 2 levels/),
      }),
    ]);
    expect(parseManifests('a: [[1]]\n', { maxDepth: 3 }).violations).toEqual([]);
  });

  test.each([
    ['a list holding itself', '&x [*x]\n', 1, 'x'],
    ['a mapping holding itself further down', 'a: &top\n  b:\n    c: *top\n', 3, 'top'],
    ['a mapping merging itself', 'a: &m\n  k: 1\n  <<: *m\n', 3, 'm'],
  ])(
    'refuses an alias inside the node its anchor names (%s) on the alias line',
    (_name, text, line, anchor) => {
      expect(parseManifests(text).violations).toEqual([
        expect.objectContaining({
          rule: 'alias-cycle',
          line,
          problem: `alias *${anchor} is inside the node its anchor &${anchor} names: a node cannot contain itself`,
        }),
      ]);
    },
  );

  test('an alias to an earlier, finished node is no cycle, also under a reused anchor name', () => {
    const text = 'a: &x [1]\nb:\n  - &x [2]\n  - *x\n  - c: *x\n';
    expect(parseManifests(text)).toEqual({
      manifests: [expect.objectContaining({ object: { a: [1], b: [[2], [2], { c: [2] }] } })],
      violations: [],
    });
  });

  test('refuses a document that aliases expand past the depth limit, on the alias that does it', () => {
    const level = (n: number, inner: string) => `${'['.repeat(n)}${inner}${']'.repeat(n)}`;
    const text = `a: &a ${level(99, '1')}\nb: &b ${level(99, '*a')}\nc: &c ${level(99, '*b')}\n`;
    expect(parseManifests(text).violations).toEqual([
      expect.objectContaining({
        rule: 'too-deep',
        line: 3,
        problem:
          'nested deeper than 256 levels of mappings and lists once alias *b is expanded (karpenter-ts reads at most 256; Kubernetes objects need about 20)',
      }),
    ]);
  });

  test.each([
    ['a mapping value', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: !!merge p\n', 4],
    ['the kind', 'apiVersion: v1\nkind: !!merge AKSNodeClass\n', 2],
    ['a list item', 'apiVersion: v1\nkind: Pod\nitems: [a, !!merge b]\n', 3],
  ])('refuses a !!merge tag on %s, on its line', (_where, text, line) => {
    expect(parseManifests(text).violations).toEqual([
      expect.objectContaining({
        rule: 'merge-tag',
        line,
        problem: 'the !!merge tag is only valid on a mapping key (<<), not on a value',
      }),
    ]);
  });

  test.each([
    ['!!binary', 'apiVersion: v1\nkind: Pod\nbudgets:\n  - !!binary aGVsbG8=\n', 4],
    ['!!timestamp', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: !!timestamp 2001-12-14\n', 4],
    ['!!set', 'apiVersion: v1\nkind: Pod\nspec: !!set {a, b}\n', 3],
    ['!!omap', 'apiVersion: v1\nkind: Pod\nspec:\n  x: !!omap [a: 1]\n', 4],
  ])(
    'refuses a %s value, which has no JSON form, on its line (the fuzz suite: !!binary made validate throw)',
    (tag, text, line) => {
      expect(parseManifests(text).violations).toEqual([
        expect.objectContaining({
          rule: 'yaml-tag',
          line,
          problem: `the ${tag} tag makes a value a Kubernetes object cannot hold (only strings, numbers, booleans, null, mappings and lists): write it untagged, as a string if need be`,
        }),
      ]);
    },
  );

  test('a !!merge tag on a mapping key merges, as <<: does', () => {
    expect(parseManifests('a: &a {x: 1}\nb: {!!merge k: *a, y: 2}\n')).toEqual({
      manifests: [expect.objectContaining({ object: { a: { x: 1 }, b: { x: 1, y: 2 } } })],
      violations: [],
    });
  });

  test('an empty file has no objects and no violations', () => {
    expect(parseManifests('')).toEqual({ manifests: [], violations: [] });
    expect(validateYaml('# only a comment\n')).toEqual([]);
  });

  test('unknown kinds are reported unless ignored', () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n';
    expect(validateYaml(cm).map((v) => v.rule)).toEqual(['unknown-kind']);
    expect(validateYaml(cm, { ignoreUnknownKinds: true })).toEqual([]);
  });
});

describe('old API versions and fields', () => {
  test('a v1alpha5 Provisioner is unsupported-version with the way forward', () => {
    const v = validate({
      apiVersion: 'karpenter.sh/v1alpha5',
      kind: 'Provisioner',
      metadata: { name: 'p' },
      spec: {},
    });
    expect(v).toEqual([
      expect.objectContaining({ rule: 'unsupported-version', path: 'apiVersion' }),
    ]);
    expect(v[0]?.message).toMatch(/karpenter.sh\/v1 NodePool/);
  });

  test('a v1beta1 NodePool is unsupported-version', () => {
    const v = validate({ ...nodePool(), apiVersion: 'karpenter.sh/v1beta1' });
    expect(v).toEqual([expect.objectContaining({ rule: 'unsupported-version' })]);
    expect(v[0]?.message).toMatch(/karpenter.sh\/v1\b/);
  });

  test('a v1beta1 NodePool with v1beta1 fields lists every migration hint with the apiVersion', () => {
    let obj = withField(nodePool(), 'apiVersion', 'karpenter.sh/v1beta1');
    obj = withField(obj, 'spec.template.spec.kubelet', { maxPods: 110 });
    obj = withField(obj, 'spec.template.spec.nodeClassRef.apiVersion', 'karpenter.azure.com/v1');
    obj = withField(obj, 'spec.disruption', {
      consolidateAfter: '0s',
      consolidationPolicy: 'WhenUnderutilized',
    });
    const v = validate(obj);
    expect(v.map((x) => [x.path, x.rule])).toEqual([
      ['apiVersion', 'unsupported-version'],
      ['spec.template.spec.nodeClassRef.apiVersion', 'deprecated-field'],
      ['spec.template.spec.kubelet', 'deprecated-field'],
      ['spec.disruption.consolidationPolicy', 'enum'],
    ]);
    expect(v[3]?.message).toMatch(/renamed to WhenEmptyOrUnderutilized/);
  });

  test.each([
    ['spec.ttlSecondsAfterEmpty', 30, /consolidationPolicy: WhenEmpty/],
    ['spec.ttlSecondsUntilExpired', 2592000, /spec.template.spec.expireAfter/],
    ['spec.consolidation', { enabled: true }, /WhenEmptyOrUnderutilized/],
    ['spec.providerRef', { name: 'default' }, /nodeClassRef/],
    ['spec.kubeletConfiguration', { maxPods: 110 }, /NodeClass/],
    ['spec.requirements', [], /spec.template.spec.requirements/],
    ['spec.disruption.expireAfter', '720h', /spec.template.spec.expireAfter/],
    ['spec.template.spec.kubelet', { maxPods: 110 }, /NodeClass/],
    ['spec.template.spec.nodeClassRef.apiVersion', 'karpenter.azure.com/v1beta1', /group/],
    ['spec.limits.resources', { cpu: '100' }, /directly under spec.limits/],
  ])('%s says what replaced it', (path, value, hint) => {
    let obj = withField(nodePool(), path, value);
    if (path === 'spec.disruption.expireAfter')
      obj = withField(obj, 'spec.disruption.consolidateAfter', '0s');
    const v = validate(obj);
    expect(v).toEqual([
      expect.objectContaining({ path, rule: 'deprecated-field', apiServer: 'prune' }),
    ]);
    expect(v[0]?.message).toMatch(hint);
  });

  test('consolidationPolicy WhenUnderutilized names its v1 replacement', () => {
    const v = validate(
      withField(nodePool(), 'spec.disruption', {
        consolidateAfter: '0s',
        consolidationPolicy: 'WhenUnderutilized',
      }),
    );
    expect(v[0]?.message).toMatch(/renamed to WhenEmptyOrUnderutilized/);
  });
});

describe('wrong types and garbage', () => {
  test.each([
    ['requirements is a map', 'spec.template.spec.requirements', { key: 'a' }, 'type'],
    ['weight is a float', 'spec.weight', 1.5, 'type'],
    ['taints is a string', 'spec.template.spec.taints', 'gpu=true:NoSchedule', 'type'],
    ['limits has a bad quantity', 'spec.limits', { memory: '16GB' }, 'pattern'],
    ['limits has a nested map', 'spec.limits', { cpu: { max: 4 } }, 'anyOf'],
    ['labels has a number value', 'spec.template.metadata.labels', { tier: 1 }, 'type'],
  ])('%s is a clear violation', (_name, path, value, rule) => {
    const v = validate(withField(nodePool(), path, value));
    expect(
      v.some((x) => x.rule === rule && x.path.startsWith(path.split('.').slice(0, 2).join('.'))),
    ).toBe(true);
  });

  test.each([
    [
      'spec.limits',
      { cpu: Infinity },
      'spec.limits.cpu',
      'must be an integer or a string, got number Infinity (YAML reads .inf and unquoted numbers beyond ±1.8e308, such as 1e400, as infinity, which JSON cannot carry; quote it to write a string)',
    ],
    [
      'spec.limits',
      { memory: -Infinity },
      'spec.limits.memory',
      'must be an integer or a string, got number -Infinity (YAML reads .inf and unquoted numbers beyond ±1.8e308, such as 1e400, as infinity, which JSON cannot carry; quote it to write a string)',
    ],
    [
      'spec.weight',
      NaN,
      'spec.weight',
      'must be an integer, got number NaN (YAML reads .nan as not-a-number, which JSON cannot carry; quote it to write a string)',
    ],
  ])(
    'refuses a number that is not finite (%s = %o), which YAML makes of 1e400 or .nan',
    (path, value, at, message) => {
      const v = validate(withField(nodePool(), path, value));
      expect(v).toEqual([
        expect.objectContaining({
          path: at,
          message,
        }),
      ]);
    },
  );

  test('a bad quantity message explains what a quantity is', () => {
    const v = validate(withField(nodePool(), 'spec.limits', { memory: '16GB' }));
    expect(v[0]?.message).toBe(
      '"16GB" is not a Kubernetes quantity (examples: 100, 500m, 1.5, 16Gi, 1e3)',
    );
  });

  test('a number where a string belongs suggests quotes', () => {
    const v = validate(
      withField(nodePool(), 'spec.disruption', {
        consolidateAfter: '0s',
        budgets: [{ nodes: 10 }],
      }),
    );
    expect(v[0]?.message).toMatch(/write it in quotes: "10"/);
  });

  test('a number where a duration belongs suggests the quoted duration in seconds, not a quoted number', () => {
    const v = validate(withField(nodePool(), 'spec.disruption', { consolidateAfter: 30 }));
    expect(v[0]?.message).toBe(
      'must be a string, got integer 30 (a duration, in quotes with its unit: "30s")',
    );
  });

  test('non-objects are violations, not exceptions', () => {
    for (const input of [undefined, null, 42, 'text', [], [nodePool()]]) {
      expect(validate(input)).toEqual([expect.objectContaining({ rule: 'not-an-object' })]);
    }
  });

  test('arbitrary JSON inside a NodePool never throws', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.constantFrom(
          'spec',
          'spec.template',
          'spec.template.spec',
          'spec.disruption',
          'spec.limits',
          'metadata',
          'status',
        ),
        (value, path) => {
          const v = validate(withField(nodePool(), path, value));
          expect(Array.isArray(v)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('arbitrary text never makes validateYaml throw', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        expect(Array.isArray(validateYaml(text))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
