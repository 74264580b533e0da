/**
 * The JSON Schema (draft-07, validated with ajv) of a scenario file. docs/simulator.md shows it
 * with an example; `karpenter-ts-sim schema` prints it. Times are durations: a number of
 * seconds, or a string of `<number><unit>` parts with units `d`, `h`, `m`, `s`, `ms` (`90s`,
 * `1h30m`, `1.5d`). A leading `-` is accepted by the schema so that a negative time is reported
 * as "before time 0" by the checks after it, with its line.
 */

/**
 * The most pods one count may ask for: the CLI's cap on a simulation (400,000 pending pods), so a
 * typo such as `replicas: 100000000` is refused instead of running the engine out of memory.
 */
export const MaxPods = 400_000;

/** A duration (see the module comment). */
const duration = {
  type: ['number', 'string'],
  pattern: '^-?(\\d+(\\.\\d+)?(d|h|ms|m|s))+$',
  description: 'seconds, or a duration such as 90s, 15m, 1h30m, 1d',
};

/** A resource quantity as Kubernetes writes it (`500m`, `2`, `4Gi`). */
const quantity = { type: ['string', 'number'] };

const stringMap = { type: 'object', additionalProperties: { type: 'string' } };

const toleration = {
  type: 'object',
  additionalProperties: false,
  properties: {
    key: { type: 'string' },
    operator: { enum: ['Exists', 'Equal'] },
    value: { type: 'string' },
    effect: { enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] },
    tolerationSeconds: { type: 'integer' },
  },
};

/** Which nodes an interruption or failure may hit. */
const nodeSelector = {
  instanceType: { type: 'string', minLength: 1 },
  zone: { type: 'string', minLength: 1 },
  nodePool: { type: 'string', minLength: 1 },
};

const workloadRef = {
  type: 'string',
  minLength: 1,
  description: '[namespace/]name of a Deployment, ReplicaSet or StatefulSet in the manifests',
};

const event = (type: string, properties: Record<string, unknown>, required: string[]) => ({
  type: 'object',
  additionalProperties: false,
  required: ['type', ...required],
  properties: { type: { const: type }, ...properties },
});

const events = [
  event(
    'replicas',
    {
      at: duration,
      workload: workloadRef,
      workloads: { type: 'array', minItems: 1, items: workloadRef },
      replicas: { type: 'integer', minimum: 0, maximum: MaxPods },
    },
    ['at', 'replicas'],
  ),
  event(
    'replicasCurve',
    {
      workloads: { type: 'array', minItems: 1, items: workloadRef },
      from: duration,
      to: duration,
      every: duration,
      minReplicas: { type: 'integer', minimum: 0, maximum: MaxPods },
      maxReplicas: { type: 'integer', minimum: 0, maximum: MaxPods },
      curve: {
        type: 'object',
        additionalProperties: false,
        required: ['points'],
        properties: {
          shape: { enum: ['sine', 'step', 'linear'] },
          period: duration,
          noise: { type: 'number', minimum: 0, maximum: 1 },
          points: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['at', 'value'],
              properties: { at: duration, value: { type: 'number', minimum: 0 } },
            },
          },
        },
      },
    },
    ['workloads', 'curve'],
  ),
  event(
    'jobs',
    {
      name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 40 },
      at: duration,
      repeat: duration,
      count: { type: 'integer', minimum: 1, maximum: MaxPods },
      completions: { type: 'integer', minimum: 1, maximum: MaxPods },
      parallelism: { type: 'integer', minimum: 1, maximum: MaxPods },
      runTime: duration,
      runTimeJitter: { type: 'number', minimum: 0, maximum: 1 },
      namespace: { type: 'string', minLength: 1 },
      requests: { type: 'object', additionalProperties: quantity },
      labels: stringMap,
      nodeSelector: stringMap,
      tolerations: { type: 'array', items: toleration },
    },
    ['name', 'at', 'runTime', 'requests'],
  ),
  event('trace', { file: { type: 'string', minLength: 1 } }, ['file']),
  event(
    'spotInterruptions',
    {
      ratePerHour: { type: 'number', exclusiveMinimum: 0 },
      from: duration,
      to: duration,
      at: { type: 'array', minItems: 1, items: duration },
      notice: duration,
      ...nodeSelector,
    },
    [],
  ),
  event(
    'capacityError',
    {
      instanceType: { type: 'string', minLength: 1 },
      zone: { type: 'string', minLength: 1 },
      capacityType: { enum: ['on-demand', 'spot'] },
      from: duration,
      to: duration,
    },
    ['from', 'to'],
  ),
  event(
    'nodePoolChange',
    { at: duration, nodePool: { type: 'string', minLength: 1 }, patch: { type: 'object' } },
    ['at', 'nodePool', 'patch'],
  ),
  event(
    'nodeClassChange',
    { at: duration, nodeClass: { type: 'string', minLength: 1 }, patch: { type: 'object' } },
    ['at', 'nodeClass', 'patch'],
  ),
  event(
    'nodeFailure',
    { at: duration, count: { type: 'integer', minimum: 1, maximum: MaxPods }, ...nodeSelector },
    ['at'],
  ),
];

/** Event `type` values, in the order the docs list them. */
export const EVENT_TYPES: readonly string[] = events.map((e) => e.properties.type.const);

const startup = {
  type: 'object',
  additionalProperties: false,
  properties: { launch: duration, boot: duration, registration: duration },
};

/** The scenario schema (see the module comment). */
export const SCENARIO_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'karpenter-ts-sim scenario',
  type: 'object',
  additionalProperties: false,
  required: ['apiVersion', 'kind', 'name', 'duration', 'manifests'],
  properties: {
    apiVersion: { const: 'sim.karpenter-ts.io/v1alpha1' },
    kind: { const: 'Scenario' },
    name: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    seed: { type: 'integer', minimum: 0, maximum: 4294967295 },
    start: { type: 'string', description: 'ISO 8601 time of time 0 (UTC)' },
    duration: duration,
    sample: duration,
    clouds: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['cloud'],
        properties: {
          cloud: { enum: ['azure', 'aws', 'sim'] },
          region: { type: 'string' },
          manifests: { type: 'array', items: { type: 'string', minLength: 1 } },
        },
      },
    },
    manifests: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    nodeStartup: {
      type: 'object',
      additionalProperties: false,
      properties: { azure: startup, aws: startup, sim: startup },
    },
    karpenter: {
      type: 'object',
      additionalProperties: false,
      properties: {
        spotToSpotConsolidation: { type: 'boolean' },
        nodeRepair: { type: 'boolean' },
        nodeOverlay: { type: 'boolean' },
      },
    },
    autoscalers: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { enum: ['karpenter', 'cluster-autoscaler'] },
      description: 'the autoscalers each cloud runs under (default [karpenter])',
    },
    clusterAutoscaler: {
      type: 'object',
      additionalProperties: false,
      properties: {
        expander: { enum: ['random', 'least-waste', 'price'] },
        nodeGroups: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['nodePool', 'instanceTypes'],
            properties: {
              nodePool: { type: 'string', minLength: 1 },
              instanceTypes: {
                type: 'array',
                minItems: 1,
                items: { type: 'string', minLength: 1 },
              },
              capacityType: { enum: ['on-demand', 'spot'] },
              minSize: { type: 'integer', minimum: 0 },
              maxSize: { type: 'integer', minimum: 1 },
            },
          },
        },
      },
    },
    events: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type'],
        properties: { type: { enum: EVENT_TYPES } },
        discriminator: { propertyName: 'type' },
        oneOf: events,
      },
    },
  },
} as const;
