/**
 * The generic CRD validator that provider packages use for their NodeClass CRDs, exercised on a
 * small CRD built to hit each feature: nullable, int-or-string, preserve-unknown-fields, rules in
 * list items and map values, map-list oldSelf correlation, messageExpression, fieldPath.
 */
import { describe, expect, test } from 'vitest';
import { CrdDefinitionError, crdValidator, validate } from '../src/index.js';

const widgetCrd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
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
              x-kubernetes-validations:
                - rule: "!has(self.size) || self.size != 'huge'"
                  messageExpression: "'size ' + self.size + ' is too big'"
                - rule: "self.ports.all(p, p.port > 0)"
                  message: ports must be positive
                  fieldPath: .ports
              properties:
                size:
                  type: string
                  default: small
                replicas:
                  x-kubernetes-int-or-string: true
                  anyOf: [{type: integer}, {type: string}]
                note:
                  type: string
                  nullable: true
                extra:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true
                tags:
                  type: object
                  maxProperties: 10
                  additionalProperties:
                    type: string
                    x-kubernetes-validations:
                      - rule: self.lowerAscii() == self
                        message: tag values are lowercase
                ports:
                  type: array
                  maxItems: 10
                  default: []
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [name]
                  items:
                    type: object
                    required: [name]
                    x-kubernetes-validations:
                      - rule: self.port >= oldSelf.port
                        message: a port number cannot decrease
                    properties:
                      name: {type: string}
                      port: {type: integer, default: 80}
`;

const widgets = crdValidator(widgetCrd);
const widget = (spec: Record<string, unknown>): unknown => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w' },
  spec,
});

describe('crdValidator', () => {
  test('describes the CRD', () => {
    expect([widgets.group, widgets.kind, widgets.plural, widgets.scope, widgets.versions]).toEqual([
      'example.com',
      'Widget',
      'widgets',
      'Namespaced',
      ['v1'],
    ]);
  });

  test('applies defaults, including inside list items', () => {
    expect(widgets.applyDefaults(widget({ ports: [{ name: 'http' }] }))).toEqual(
      widget({ size: 'small', ports: [{ name: 'http', port: 80 }] }),
    );
  });

  test('int-or-string, nullable and preserve-unknown-fields accept what the apiserver accepts', () => {
    expect(
      widgets.validate(widget({ replicas: 3, note: null, extra: { anything: { goes: [1] } } })),
    ).toEqual([]);
    expect(widgets.validate(widget({ replicas: '50%' }))).toEqual([]);
    expect(widgets.validate(widget({ replicas: 1.5 })).map((v) => v.rule)).toEqual(['anyOf']);
  });

  test('drops a null where the schema is neither nullable nor defaulted, as the apiserver prunes it', () => {
    expect(widgets.validate(widget({ extra: null, tags: { a: null }, note: null }))).toEqual([]);
    expect(
      widgets.applyDefaults(widget({ extra: null, tags: null, size: null, note: null })),
    ).toEqual(widget({ size: 'small', ports: [], note: null }));
    // Items of a list are not pruned: a null item is still not an object.
    expect(widgets.validate(widget({ ports: [null] })).map((v) => [v.path, v.rule])).toEqual([
      ['spec.ports[0]', 'type'],
    ]);
    // A required field that is null is then missing.
    expect(
      validate({
        apiVersion: 'karpenter.sh/v1alpha1',
        kind: 'NodeOverlay',
        metadata: { name: 'o' },
        spec: null,
      }).map((v) => [v.path, v.rule]),
    ).toEqual([['spec', 'required']]);
  });

  test('messageExpression builds the message', () => {
    expect(widgets.validate(widget({ size: 'huge' }))).toEqual([
      expect.objectContaining({ path: 'spec', message: 'size huge is too big' }),
    ]);
  });

  test('fieldPath moves the violation to the named field', () => {
    expect(
      widgets.validate(widget({ ports: [{ name: 'a', port: 0 }] })).map((v) => v.path),
    ).toEqual(['spec.ports']);
  });

  test('rules under additionalProperties bind self to each map value', () => {
    expect(
      widgets.validate(widget({ tags: { a: 'ok', b: 'NotOk' } })).map((v) => [v.path, v.message]),
    ).toEqual([['spec.tags.b', 'tag values are lowercase']]);
  });

  test('map lists correlate oldSelf by key, so transition rules run per item on update', () => {
    const old = widget({ ports: [{ name: 'http', port: 8080 }] });
    expect(
      widgets
        .validate(widget({ ports: [{ name: 'http', port: 8000 }] }), { oldObj: old })
        .map((v) => v.path),
    ).toEqual(['spec.ports[0]']);
    // A new item has no old value: the transition rule does not run for it.
    expect(
      widgets.validate(
        widget({
          ports: [
            { name: 'http', port: 8080 },
            { name: 'grpc', port: 1 },
          ],
        }),
        { oldObj: old },
      ),
    ).toEqual([]);
  });

  test('unknown fields are reported; preserved subtrees are not', () => {
    expect(
      widgets
        .validate(widget({ colour: 'red', extra: { colour: 'red' } }))
        .map((v) => [v.path, v.rule]),
    ).toEqual([['spec.colour', 'unknown-field']]);
  });

  test('prune returns the object the apiserver would store', () => {
    expect(widgets.prune(widget({ colour: 'red', size: 'big' }))).toEqual(widget({ size: 'big' }));
  });

  test('an unserved version is reported with the served ones', () => {
    const v = widgets.validate({
      apiVersion: 'example.com/v2',
      kind: 'Widget',
      metadata: { name: 'w' },
    });
    expect(v).toEqual([
      expect.objectContaining({
        rule: 'unsupported-version',
        message: expect.stringContaining('example.com/v1'),
      }),
    ]);
  });

  test('validate() dispatches to validators passed by the caller', () => {
    expect(
      validate(widget({ size: 'huge' }), { validators: [widgets] }).map((v) => v.kind),
    ).toEqual(['Widget']);
  });

  test('a CRD with a rule that cannot be parsed is refused up front', () => {
    expect(() =>
      crdValidator(widgetCrd.replace('self.lowerAscii() == self', 'self ==== 1')),
    ).toThrow(CrdDefinitionError);
  });

  test('a document that is not a CRD is refused', () => {
    expect(() => crdValidator({ kind: 'ConfigMap' })).toThrow(CrdDefinitionError);
    expect(() =>
      crdValidator(
        'kind: CustomResourceDefinition\nspec: {group: x, names: {kind: X}, versions: []}',
      ),
    ).toThrow(/served version/);
  });
});
