/**
 * The Kubernetes version the AKSNodeClass status controller writes (`status.kubernetesVersion`):
 * the API server's `/version` `gitVersion` without the `v`, read at most every 15 minutes, as
 * upstream's Kubernetes version check.
 */
import type { Clock } from '@karpenter-ts/controllers';
import { parseKubernetesVersion } from '../../../images/kubernetes-version.js';
import type { KubeApiGet } from '../../api-get.js';

/** Seconds a read API server version is reused (upstream's 15 minutes). */
export const KubernetesVersionTTLSeconds = 900;

/**
 * `fetch` (the API server's `/version`, without `v`) reused for `ttlSeconds` (default 15 min) by
 * `clock`; a failed fetch is raised and not cached.
 */
export function cachedKubernetesVersion(
  fetch: () => Promise<string>,
  clock: Clock,
  ttlSeconds = KubernetesVersionTTLSeconds,
): () => Promise<string> {
  let cached: { version: string; at: number } | undefined;
  return async () => {
    const now = clock.now();
    if (cached && now - cached.at < ttlSeconds * 1000) return cached.version;
    const version = await fetch();
    cached = { version, at: now };
    return version;
  };
}

/**
 * The API server's version as `major.minor.patch` (`1.36.3`) from `GET /version`. Raises Error
 * when the answer has no readable `gitVersion`, and whatever `get` raises.
 */
export async function apiServerVersion(get: KubeApiGet): Promise<string> {
  const v = (await get('GET', '/version')) as { gitVersion?: string };
  const parsed = parseKubernetesVersion(v.gitVersion ?? '');
  if (!parsed)
    throw new Error(`API server /version gitVersion ${JSON.stringify(v.gitVersion)} is unreadable`);
  return `${parsed.major}.${parsed.minor}.${parsed.patch}`;
}
