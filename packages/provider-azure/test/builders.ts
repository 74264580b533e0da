/** Test builders: AKSNodeClasses from a few fields, and data-file records. */
import { readFileSync } from 'node:fs';
import type { AKSNodeClass, AKSNodeClassSpec } from '../src/index.js';

/** A v1beta1 AKSNodeClass named `test` with the given spec fields. */
export function nodeClass(
  spec: AKSNodeClassSpec = {},
  status?: AKSNodeClass['status'],
): AKSNodeClass {
  return {
    apiVersion: 'karpenter.azure.com/v1beta1',
    kind: 'AKSNodeClass',
    metadata: { name: 'test' },
    spec,
    ...(status ? { status } : {}),
  };
}

/** Parses a file of packages/provider-azure/data. */
export function dataFile<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../data/${name}`, import.meta.url), 'utf8')) as T;
}
