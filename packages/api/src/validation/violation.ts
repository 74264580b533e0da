/**
 * The one shape every validation problem is reported in.
 */

/**
 * What a real kube-apiserver does with the problem:
 * - `reject`: the create/update request fails (OpenAPI schema or CEL rule violation).
 * - `prune`: an unknown field. The apiserver drops it silently (structural pruning) and returns a
 *   warning; with strict field validation (`kubectl apply`/`create` default since kubectl 1.25,
 *   `fieldValidation=Strict`) the request is rejected instead.
 * - `accept`: the apiserver stores the object, but the controller's runtime validation marks it
 *   invalid (NodePool condition `ValidationSucceeded=False`), so it is not used.
 * - `none`: not an apiserver matter (e.g. malformed YAML that kubectl cannot even send).
 */
export type ApiServerAction = 'reject' | 'prune' | 'accept' | 'none';

/**
 * One validation problem.
 * - `kind`/`name`: the object's kind and `metadata.name` (`''` when unknown).
 * - `path`: field path like `spec.template.spec.requirements[2].operator`; map keys that are not
 *   plain identifiers are bracketed (`spec.template.metadata.labels[karpenter.sh/foo]`); `''` for
 *   the whole object or document.
 * - `rule`: the OpenAPI keyword (`type`, `enum`, `pattern`, `required`, `maxItems`, ...), the CEL
 *   rule text, or one of `unknown-field`, `deprecated-field`, `unsupported-version`,
 *   `unknown-kind`, `yaml-syntax`, `duplicate-key`, `not-an-object`, `metadata`, `runtime:*`.
 * - `message`: what is wrong, in plain words.
 * - `file`/`line`: set by {@link validateYaml} (1-based line of the offending node).
 */
export interface Violation {
  kind: string;
  name: string;
  path: string;
  rule: string;
  message: string;
  apiServer: ApiServerAction;
  file?: string;
  line?: number;
}

/** A path segment: a property name / map key (string) or an array index (number). */
export type PathSegment = string | number;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** Formats path segments as a Kubernetes-style field path (`a.b[2].c`, `labels[example.com/x]`). */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (IDENT.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${s}]`;
  }
  return out;
}
