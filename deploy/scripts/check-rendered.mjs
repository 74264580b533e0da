#!/usr/bin/env node
// Reads `helm template` output on stdin: every document must parse as YAML, and the rendering
// must contain the operator's kinds. Argument: a label for messages (the --set flags used).
import { parseAllDocuments } from 'yaml';

const label = process.argv[2] ?? '';
let text = '';
for await (const chunk of process.stdin) text += chunk;
const kinds = new Map();
for (const doc of parseAllDocuments(text)) {
  if (doc.errors.length > 0) {
    console.error(`check-rendered (${label}): ${doc.errors[0].message}`);
    process.exit(1);
  }
  const obj = doc.toJS();
  if (obj === null) continue;
  if (typeof obj.kind !== 'string' || typeof obj.apiVersion !== 'string' || !obj.metadata?.name) {
    console.error(`check-rendered (${label}): a document without apiVersion, kind or metadata.name`);
    process.exit(1);
  }
  kinds.set(obj.kind, (kinds.get(obj.kind) ?? 0) + 1);
}
const expected = ['CustomResourceDefinition', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'Deployment', 'Service', 'PodDisruptionBudget'];
const missing = expected.filter((k) => !kinds.has(k));
if (missing.length > 0) {
  console.error(`check-rendered (${label}): missing ${missing.join(', ')}`);
  process.exit(1);
}
console.log(`check-rendered (${label}): ${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')}`);
