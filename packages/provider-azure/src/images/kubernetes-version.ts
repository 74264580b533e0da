/**
 * Kubernetes versions as the API server reports them (`v1.33.2`, `1.34.0-aks.1`), parsed and
 * ordered: image families resolve by minor version, and `status.kubernetesVersion` only moves
 * forward (upstream `Azure/karpenter-provider-azure`'s AKSNodeClass status).
 */

/** A parsed version: major, minor, patch (0 when absent). */
export interface KubernetesVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

/**
 * Parses `1.33`, `1.33.2`, `v1.33.2`, `1.33.2-aks.1+abc` (pre-release and build suffixes are
 * ignored). Returns undefined when the text does not start with `major.minor`.
 */
export function parseKubernetesVersion(version: string): KubernetesVersion | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(version.trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) };
}

/**
 * Negative when `a` is older than `b`, 0 when equal (ignoring suffixes), positive when newer.
 * Raises Error naming the value when either is not a Kubernetes version.
 */
export function compareKubernetesVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => {
    const parsed = parseKubernetesVersion(v);
    if (!parsed) throw new Error(`${JSON.stringify(v)} is not a Kubernetes version (major.minor)`);
    return parsed;
  }) as [KubernetesVersion, KubernetesVersion];
  return x.major - y.major || x.minor - y.minor || x.patch - y.patch;
}

/** True when `version` is at least `major.minor`. Raises Error when it is not a version. */
export function kubernetesVersionAtLeast(version: string, major: number, minor: number): boolean {
  return compareKubernetesVersions(version, `${major}.${minor}`) >= 0;
}
