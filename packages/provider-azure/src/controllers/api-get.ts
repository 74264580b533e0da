/**
 * A GET on the Kubernetes API server by path (`/version`, a ConfigMap), for what the controllers'
 * KubeClient does not cache. The operator passes its raw request function; tests pass a stub.
 */

/**
 * Sends `GET path` to the API server and resolves with the parsed JSON answer. Rejects with the
 * client's error (one `isNotFound` from `@karpenter-ts/controllers` recognizes for a 404).
 */
export type KubeApiGet = (method: 'GET', path: string) => Promise<unknown>;
