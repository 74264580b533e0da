/**
 * The JSON Schema of a sweep file (`kind: Sweep`), checked with ajv as scenarios are;
 * docs/simulator.md describes the fields.
 */
export const SWEEP_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'karpenter-ts-sim sweep',
  type: 'object',
  additionalProperties: false,
  required: ['apiVersion', 'kind', 'name', 'scenarios'],
  properties: {
    apiVersion: { const: 'sim.karpenter-ts.io/v1alpha1' },
    kind: { const: 'Sweep' },
    name: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    scenarios: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    clouds: {
      type: 'array',
      minItems: 1,
      items: { type: 'string', pattern: '^(azure|aws|sim)(:[a-z0-9-]+)?$' },
    },
    autoscalers: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { enum: ['karpenter', 'cluster-autoscaler'] },
    },
    variants: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$' },
          nodePools: {
            type: 'object',
            description: 'NodePool name -> JSON merge patch (RFC 7396) applied before the run',
            additionalProperties: { type: 'object' },
          },
        },
      },
    },
  },
} as const;
