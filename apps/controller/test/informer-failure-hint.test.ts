import { NotFoundError } from '@karpenter-ts/controllers';
import { describe, expect, it } from 'vitest';
import { informerFailureHint } from '../src/kube/informer-failure-hint.js';

describe('the hint logged with a failed cache list', () => {
  it('names the CRD to install when a custom resource answers 404', () => {
    const err = new NotFoundError('GET /apis/karpenter.sh/v1/nodepools: 404 page not found');
    expect(informerFailureHint(err, 'nodepools.karpenter.sh')).toBe(
      "the nodepools.karpenter.sh CRD is not installed: apply the chart's CRDs (kubectl apply --server-side -f deploy/charts/karpenter-ts/crds)",
    );
  });

  it('gives none for a core resource or for errors other than 404', () => {
    expect(informerFailureHint(new NotFoundError('GET /api/v1/pods'), 'pods.core')).toBeUndefined();
    expect(
      informerFailureHint(new Error('connect ECONNREFUSED'), 'nodepools.karpenter.sh'),
    ).toBeUndefined();
  });
});
