/**
 * How long a new node takes to start, per cloud, before the kubelet stand-in registers it
 * (Ready at once). These are estimates, not measurements: a few seconds for the launch request
 * on AWS (CreateFleet answers with an instance at once) against a long-running VM create on
 * Azure, then an OS boot and kubelet start, then registration and the node becoming Ready.
 * Karpenter's own documentation and talks speak of nodes Ready in about a minute on EKS; AKS
 * node provisioning is commonly a minute or two. Scenarios override them with `nodeStartup`.
 */
import type { CloudName } from '@karpenter-ts/cli';
import type { NodeStartup } from '../scenario/types.js';

/** Default delays per cloud (estimates, see the module comment). */
export const DEFAULT_NODE_STARTUP: Readonly<Record<CloudName, NodeStartup>> = {
  azure: { launchSeconds: 40, bootSeconds: 35, registrationSeconds: 15 },
  aws: { launchSeconds: 5, bootSeconds: 35, registrationSeconds: 15 },
  sim: { launchSeconds: 0, bootSeconds: 30, registrationSeconds: 0 },
};

/** The cloud's defaults with the scenario's overrides. */
export function nodeStartupFor(
  cloud: CloudName,
  overrides: Partial<NodeStartup> = {},
): NodeStartup {
  return { ...DEFAULT_NODE_STARTUP[cloud], ...overrides };
}

/** Seconds from launch to a registered, Ready Node. */
export function totalStartupSeconds(s: NodeStartup): number {
  return s.launchSeconds + s.bootSeconds + s.registrationSeconds;
}
