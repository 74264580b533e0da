/**
 * Which labels a kubelet may set on its own Node, as the NodeRestriction admission plugin allows:
 * any key outside the `kubernetes.io` and `k8s.io` domains, keys under `kubelet.kubernetes.io`
 * and `node.kubernetes.io`, and the four well-known `kubernetes.io/arch`, `kubernetes.io/os`,
 * `topology.kubernetes.io/region` and `topology.kubernetes.io/zone`. Providers filter the labels
 * they hand a node's bootstrap (`--node-labels`) with it, since the API server refuses a Node
 * registration carrying any other `kubernetes.io` key; Karpenter syncs the rest onto the Node
 * after registration.
 */
export function kubeletMaySet(key: string): boolean {
  const slash = key.indexOf('/');
  const domain = slash < 0 ? '' : key.slice(0, slash);
  if (!/(^|\.)(kubernetes\.io|k8s\.io)$/.test(domain)) return true;
  if (domain === 'kubelet.kubernetes.io' || domain === 'node.kubernetes.io') return true;
  return KubeletWellKnownLabels.has(key);
}

const KubeletWellKnownLabels: ReadonlySet<string> = new Set([
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'topology.kubernetes.io/region',
  'topology.kubernetes.io/zone',
]);
