/**
 * Pods with a run time: Job waves and trace rows, handed to the Job stand-in. Each pod carries
 * its run time (`sim.karpenter-ts.io/run-seconds`) and completes that long after it is bound.
 */
import type { Pod } from '@karpenter-ts/api';
import { RunSecondsAnnotation } from '@karpenter-ts/controllers';
import type { PodShape } from '../../scenario/types.js';

/** A pod template for `shape` running `runSeconds`. */
export function workTemplate(
  shape: PodShape,
  runSeconds: number,
  labels: Record<string, string>,
): Pick<Pod, 'metadata' | 'spec'> {
  return {
    metadata: {
      labels: { ...shape.labels, ...labels },
      annotations: { [RunSecondsAnnotation]: String(runSeconds) },
    },
    spec: {
      restartPolicy: 'Never',
      containers: [{ name: 'work', image: 'sim', resources: { requests: { ...shape.requests } } }],
      ...(Object.keys(shape.nodeSelector).length > 0
        ? { nodeSelector: { ...shape.nodeSelector } }
        : {}),
      ...(shape.tolerations.length > 0
        ? { tolerations: structuredClone([...shape.tolerations]) }
        : {}),
    },
  };
}
