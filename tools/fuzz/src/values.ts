/**
 * What a field can be mutated into: JavaScript values of the wrong kind (stringified into the
 * YAML) and raw YAML snippets no JavaScript value stringifies to (aliases, tags, numbers YAML
 * reads oddly, deep nesting, alias bombs).
 */
import fc from 'fast-check';

/**
 * Kind and group names, so a document can turn into another kind or API group than the one it
 * started as.
 */
const KIND_NAMES = [
  'StatefulSet',
  'CronJob',
  'DaemonSet',
  'Pod',
  'ReplicaSet',
  'Node',
  'List',
  'NodePool',
  'NodeClaim',
  'NodeOverlay',
  'AKSNodeClass',
  'EC2NodeClass',
  'SimNodeClass',
  'karpenter.k8s.aws',
  'karpenter.azure.com',
  'karpenter.sh/v1alpha1',
  'karpenter.sh/v1',
  'batch/v1',
  'v1',
];

/** Quantity-shaped and near-quantity strings: malformed, out of range, negative, odd suffixes. */
const QUANTITIES = [
  '1Gi',
  '100m',
  '-1',
  '-100Mi',
  '1.5.5',
  '1Zi',
  '5GB',
  '1e3m',
  '0.0000000001',
  '1E',
  '99999999999999999999Ei',
  '99999999999999999999m',
  '+1',
  ' 1',
  '1 Gi',
  'Gi',
  '١٢٣', // Arabic-Indic digits
  '1_000',
  '0x1F',
  'NaN',
  'Infinity',
];

/**
 * A JS value of the wrong kind for most fields: names of other kinds, JSON of any shape, null,
 * edge numbers (int32 and safe-integer bounds, 1e308, fractions), empty and odd strings,
 * quantities, long strings (up to 100,000 characters), unicode (graphemes, lone surrogates).
 */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...KIND_NAMES),
  fc.constantFrom(...QUANTITIES),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    null,
    0,
    -1,
    5,
    1.5,
    -0.5,
    2 ** 31,
    2 ** 31 - 1,
    -(2 ** 31) - 1,
    2 ** 53 + 2,
    -(2 ** 53) - 2,
    1e20,
    1e308,
    -1e308,
    5e-324,
    true,
    false,
    '',
    ' ',
    'Gte',
    'null',
    '~',
    '0',
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 24 }),
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc
    .tuple(fc.integer({ min: 254, max: 100_000 }), fc.constantFrom('x', 'é', '🙂', 'a.b/', '-'))
    .map(([n, c]) => c.repeat(Math.ceil(n / c.length))),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.constant(null)), {
    maxLength: 3,
  }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), {
    maxKeys: 2,
  }),
);

/**
 * YAML text for a value: self-referencing and billion-laughs aliases, `!!merge` and other tags,
 * unquoted numbers YAML reads as Infinity, NaN, huge or hexadecimal, YAML 1.1 booleans, flow
 * collections, quoted quantities, and nesting 200 to 1,300 levels deep.
 */
export const rawYaml: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '&x [*x]',
    '&y {a: *y}',
    '!!merge p',
    '!!binary aGVsbG8=',
    '!!str 5',
    '!!int "x"',
    '!!float 1e400',
    '!!timestamp 2001-12-14',
    '!!set {a, b}',
    '!!omap [a: 1, a: 2]',
    '!custom x',
    '1e400',
    '-1e400',
    '.nan',
    '.inf',
    '-.inf',
    '99999999999999999999',
    '1e20',
    '-1e308',
    '"-1e308"',
    '"1e400"',
    '"1e20"',
    '"-1"',
    '"99999999999999999999m"',
    '2147483648',
    '9007199254740993',
    '-2147483649',
    '1.5',
    '0x10',
    '0o17',
    '1_000',
    'yes',
    'off',
    '~',
    '{}',
    '[]',
    '[~]',
    '""',
    '"5Gi"',
    '"100m"',
    '[&q 1, *q, *q]',
    '{a: 1, a: 2}',
    '*undefined',
    '"\\u0000"',
    "'\\x00'",
  ),
  fc.integer({ min: 200, max: 400 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.integer({ min: 200, max: 400 }).map((n) => `${'{a: '.repeat(n)}1${'}'.repeat(n)}`),
  fc.integer({ min: 1000, max: 1300 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.integer({ min: 1100, max: 1300 }).map((n) => `[&z 1${', *z'.repeat(n)}]`),
  // A billion laughs: each level repeats the one before ten times.
  fc
    .integer({ min: 3, max: 9 })
    .map(
      (levels) =>
        `[&l0 "lol", ${Array.from({ length: levels }, (_, i) => `&l${i + 1} [${Array(10).fill(`*l${i}`).join(', ')}]`).join(', ')}]`,
    ),
);
