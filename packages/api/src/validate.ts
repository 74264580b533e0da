/**
 * `validate` and `applyDefaults` for any object of a kind we have a CRD for: the karpenter.sh
 * kinds built in, plus whatever validators the caller passes (e.g. AKSNodeClass, EC2NodeClass
 * from the provider packages).
 */
import { closestMatch } from 'leven';
import { karpenterValidators } from './crds.js';
import type { CrdValidator, ValidateOptions } from './validation/crd-validator.js';
import { UnsupportedVersions } from './validation/deprecated-fields.js';
import { isPlainObject, cloneJson } from './validation/schema-nodes.js';
import type { Violation } from './validation/violation.js';

/** Options for {@link validate}. */
export interface ValidateObjectOptions extends ValidateOptions {
  /** Extra validators (provider NodeClass CRDs); they take precedence over the built-in ones. */
  validators?: readonly CrdValidator[];
  /** Return no violation for kinds no validator handles (default: one `unknown-kind` violation). */
  ignoreUnknownKinds?: boolean;
}

/**
 * Validates one object (NodePool, NodeClaim, NodeOverlay, or a kind of `options.validators`) and
 * returns every violation; `[]` means a kube-apiserver with these CRDs accepts it unchanged.
 * With `oldObj`, it is validated as an UPDATE of that object (transition rules such as
 * "nodeClassRef.group cannot be changed" run). Never throws for bad input.
 */
export function validate(obj: unknown, options: ValidateObjectOptions = {}): Violation[] {
  const validator = findValidator(obj, options.validators);
  if (validator)
    return validator.validate(obj, {
      ...(options.oldObj === undefined ? {} : { oldObj: options.oldObj }),
      ...(options.subresource === undefined ? {} : { subresource: options.subresource }),
    });
  const kind = isPlainObject(obj) && typeof obj.kind === 'string' ? obj.kind : '';
  const name =
    isPlainObject(obj) && isPlainObject(obj.metadata) && typeof obj.metadata.name === 'string'
      ? obj.metadata.name
      : '';
  if (!isPlainObject(obj)) {
    return [
      {
        kind,
        name,
        path: '',
        rule: 'not-an-object',
        message: 'a Kubernetes object must be a mapping with apiVersion, kind and metadata',
        apiServer: 'none',
      },
    ];
  }
  const hint = UnsupportedVersions[`${String(obj.apiVersion)}/${kind}`];
  if (hint)
    return [
      {
        kind,
        name,
        path: 'apiVersion',
        rule: 'unsupported-version',
        message: hint,
        apiServer: 'reject',
      },
    ];
  if (options.ignoreUnknownKinds) return [];
  return [
    {
      kind,
      name,
      path: 'kind',
      rule: 'unknown-kind',
      message: `no CRD known for apiVersion ${JSON.stringify(obj.apiVersion)} kind ${JSON.stringify(obj.kind)}${kindHint(obj, options.validators)}`,
      apiServer: 'none',
    },
  ];
}

/**
 * Returns a new object with its CRD's defaults applied (e.g. a NodePool gains
 * `disruption: {consolidateAfter: 0s, consolidationPolicy: WhenEmptyOrUnderutilized, budgets: [{nodes: 10%}]}`
 * and `template.spec.expireAfter: 720h`). Objects of unknown kinds come back as an unchanged copy.
 */
export function applyDefaults<T>(obj: T, validators?: readonly CrdValidator[]): T {
  const validator = findValidator(obj, validators);
  return validator ? validator.applyDefaults(obj) : cloneJson(obj);
}

/**
 * Returns a copy of `obj` without the `null` entries the apiserver drops when it stores the
 * object (`weight:`, `limits:`, `taints:` written with no value, as Helm renders empty values):
 * readers of the copy see such a field as absent, as they would on the stored object. Objects of
 * unknown kinds come back as an unchanged copy.
 */
export function dropPrunedNulls<T>(obj: T, validators?: readonly CrdValidator[]): T {
  const validator = findValidator(obj, validators);
  return validator ? validator.dropNulls(obj) : cloneJson(obj);
}

/**
 * `; did you mean "NodePool"?` when the object's API group has a CRD whose kind differs from the
 * object's only in case or by a couple of letters (`Nodepool`, `NodePools`); else ''.
 */
function kindHint(
  obj: Record<string, unknown>,
  extra: readonly CrdValidator[] | undefined,
): string {
  const group = String(obj.apiVersion ?? '').split('/')[0] ?? '';
  const kind = String(obj.kind ?? '');
  const kinds = [...(extra ?? []), ...karpenterValidators()]
    .filter((v) => v.group === group)
    .map((v) => v.kind);
  const byLower = new Map(kinds.map((k) => [k.toLowerCase(), k]));
  const match = closestMatch(kind.toLowerCase(), [...byLower.keys()], { maxDistance: 2 });
  return match === undefined ? '' : `; did you mean ${JSON.stringify(byLower.get(match))}?`;
}

function findValidator(
  obj: unknown,
  extra: readonly CrdValidator[] | undefined,
): CrdValidator | undefined {
  if (!isPlainObject(obj)) return undefined;
  return [...(extra ?? []), ...karpenterValidators()].find((v) => v.handles(obj));
}
