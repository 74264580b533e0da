/**
 * A CEL rule that cannot be evaluated (it reads a missing field, converts a non-number) is one
 * violation carrying the rule's message and, in plain words, why it could not be checked; the
 * evaluator's own error text ("No such key", "type error") never reaches users.
 */
import { describe, expect, test } from 'vitest';
import { crdValidator, validate } from '../src/index.js';
import { evaluationProblem } from '../src/validation/cel-rules.js';
import { nodePool, withField } from './builders.js';

const gadgets = crdValidator(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets, singular: gadget, listKind: GadgetList}
  scope: Cluster
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            apiVersion: {type: string}
            kind: {type: string}
            metadata: {type: object}
            spec:
              type: object
              required: [selectorTerms]
              x-kubernetes-validations:
                - rule: "has(self.family) || self.selectorTerms.exists(t, has(t.alias))"
                  message: family is required when no selectorTerm uses an alias
              properties:
                family: {type: string}
                selectorTerms:
                  type: array
                  items:
                    type: object
                    properties:
                      alias: {type: string}
`);

describe('CEL rules that cannot be evaluated', () => {
  test('a rule reading a missing field: the rule message and "the field it reads is missing", once', () => {
    const violations = gadgets.validate({
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g' },
      spec: {},
    });
    const cel = violations.filter((v) => v.rule.startsWith('has('));
    expect(cel).toHaveLength(1);
    expect(cel[0]!.message).toBe(
      'family is required when no selectorTerm uses an alias (rule could not be evaluated: the field it reads, selectorTerms, is missing)',
    );
    expect(violations.map((v) => v.message).join('\n')).not.toMatch(/No such key/);
  });

  test('int() of a non-number in a NodePool requirement: the rule message and "not an integer"', () => {
    const obj = withField(nodePool(), 'spec.template.spec.requirements', [
      { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['abc'] },
    ]);
    const messages = validate(obj).map((v) => v.message);
    expect(messages).toContain(
      'a requirement with operator Gt, Lt, Gte or Lte needs exactly one value, a non-negative integer (rule could not be evaluated: a value it reads is not an integer)',
    );
    expect(messages.join('\n')).not.toMatch(/type error/);
  });

  test.each([
    ['No such key: amiSelectorTerms', 'the field it reads, amiSelectorTerms, is missing'],
    ['No such key: index out of bounds, index 0 of 0', 'the rule reads item 0, which is missing'],
    ['type error: cannot convert to int', 'a value it reads is not an integer'],
    ['type error: cannot convert to double', 'a value it reads is not a number'],
    ['type error: integer overflow', 'a value it reads is too large'],
  ])('words %j as %j', (error, words) => {
    expect(evaluationProblem(error)).toBe(words);
  });
});
