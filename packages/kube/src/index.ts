export { connect, KubeConnection, DefaultRetryPolicy } from './connection.js';
export type {
  ClientRateLimit,
  ConnectOptions,
  RequestOptions,
  RetryPolicy,
  WatchStream,
} from './connection.js';
export { ClusterKubeClient, DefaultCachedKinds } from './client.js';
export type { ClusterKubeClientOptions, JsonPatchOperation, StartOptions } from './client.js';
export { Informer } from './informer.js';
export type { CachedObject, InformerEvent, InformerOptions, InformerStats } from './informer.js';
export { EventRecorder } from './events.js';
export type { EventRecorderOptions } from './events.js';
export { LeaderElector } from './leader-election.js';
export type { LeaderElectionOptions } from './leader-election.js';
export { installCrds, karpenterCrdFiles, waitForEstablished } from './crds.js';
export type { InstallCrdsOptions } from './crds.js';
export { apiStatusOf, errorFromResponse, isTransient } from './errors.js';
export type { ApiStatus, StatusCause } from './errors.js';
export {
  apiVersionOf,
  BuiltinResources,
  collectionPath,
  CrdResource,
  EventResource,
  LeaseResource,
  NodeClassResources,
  objectPath,
} from './resources.js';
export type { ResourceType } from './resources.js';
