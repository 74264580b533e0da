import { Labels } from '@karpenter-ts/api';
import { pod, unschedulablePod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { isProvisionable, validatePod } from '../src/index.js';

describe('pending-pod eligibility', () => {
  it('provisions for a pod kube-scheduler marked Unschedulable', () => {
    expect(isProvisionable(unschedulablePod())).toBe(true);
  });

  it('ignores a pod kube-scheduler has not marked Unschedulable', () => {
    expect(isProvisionable(pod())).toBe(false);
    const other = pod();
    other.status!.conditions = [
      { type: 'PodScheduled', status: 'False', reason: 'SchedulerError' },
    ];
    expect(isProvisionable(other)).toBe(false);
  });

  it('ignores bound, preempting, DaemonSet and mirror pods', () => {
    const bound = unschedulablePod();
    bound.spec!.nodeName = 'n1';
    const preempting = unschedulablePod();
    preempting.status!.nominatedNodeName = 'n2';
    expect(isProvisionable(bound)).toBe(false);
    expect(isProvisionable(preempting)).toBe(false);
    expect(isProvisionable(unschedulablePod({ ownerKind: 'DaemonSet' }))).toBe(false);
    expect(isProvisionable(unschedulablePod({ ownerKind: 'Node' }))).toBe(false);
  });

  it('silently ignores a pod that requires nodepool DoesNotExist', () => {
    const p = unschedulablePod({
      nodeRequirements: [{ key: Labels.NodePool, operator: 'DoesNotExist' }],
    });
    expect(validatePod(p)).toEqual({
      message: expect.stringContaining('DoesNotExist'),
      silent: true,
    });
  });

  it('rejects restricted labels in node selectors and affinity', () => {
    expect(
      validatePod(unschedulablePod({ nodeSelector: { [Labels.Hostname]: 'a' } }))?.message,
    ).toMatch(/spec.nodeSelector: label "kubernetes.io\/hostname" is restricted/);
    expect(
      validatePod(
        unschedulablePod({
          nodeRequirements: [{ key: 'karpenter.sh/custom', operator: 'Exists' }],
        }),
      )?.message,
    ).toMatch(/matchExpressions\[0\]: label "karpenter.sh\/custom" is restricted/);
  });

  it('accepts well-known karpenter labels', () => {
    expect(
      validatePod(unschedulablePod({ nodeSelector: { [Labels.CapacityType]: 'spot' } })),
    ).toBeUndefined();
    expect(
      validatePod(unschedulablePod({ nodeSelector: { [Labels.NodePool]: 'default' } })),
    ).toBeUndefined();
  });

  it('rejects matchFields, unknown operators, empty In and malformed Gt', () => {
    const fields = unschedulablePod();
    fields.spec!.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n'] }] },
          ],
        },
      },
    };
    expect(validatePod(fields)?.message).toMatch(/matchFields/);
    expect(
      validatePod(unschedulablePod({ nodeRequirements: [{ key: 'a', operator: 'Near' }] }))
        ?.message,
    ).toMatch(/unsupported operator/);
    expect(
      validatePod(
        unschedulablePod({ nodeRequirements: [{ key: 'a', operator: 'In', values: [] }] }),
      )?.message,
    ).toMatch(/must have a value/);
    expect(
      validatePod(
        unschedulablePod({ nodeRequirements: [{ key: 'a', operator: 'Gt', values: ['x'] }] }),
      )?.message,
    ).toMatch(/single non-negative integer/);
    expect(validatePod(unschedulablePod({ nodeSelector: { a: 'bad value!' } }))?.message).toMatch(
      /value "bad value!"/,
    );
  });
});
