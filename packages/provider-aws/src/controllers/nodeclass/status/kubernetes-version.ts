/**
 * The Kubernetes minor version the AMI aliases resolve for (`1.36`): the API server's `/version`,
 * read at most every 15 minutes (upstream resolves it at startup and on its version refresh).
 */
import type { Clock } from '@karpenter-ts/controllers';

/** A GET on the API server by path, resolving with the parsed JSON answer. */
export type KubeApiGet = (method: 'GET', path: string) => Promise<unknown>;

/** Seconds a read version is reused. */
export const KubernetesVersionTTLSeconds = 900;

/**
 * `major.minor` of the API server's `gitVersion` (`v1.36.3` -> `1.36`), reused for `ttlSeconds`
 * by `clock`. Raises Error when `gitVersion` is unreadable, and whatever `get` raises (not cached).
 */
export function apiServerMinorVersion(
  get: KubeApiGet,
  clock: Clock,
  ttlSeconds = KubernetesVersionTTLSeconds,
): () => Promise<string> {
  let cached: { version: string; at: number } | undefined;
  return async () => {
    const now = clock.now();
    if (cached && now - cached.at < ttlSeconds * 1000) return cached.version;
    const v = (await get('GET', '/version')) as { gitVersion?: string };
    const m = /^v?(\d+)\.(\d+)/.exec(v.gitVersion ?? '');
    if (!m)
      throw new Error(
        `API server /version gitVersion ${JSON.stringify(v.gitVersion)} is unreadable`,
      );
    cached = { version: `${m[1]}.${m[2]}`, at: now };
    return cached.version;
  };
}
