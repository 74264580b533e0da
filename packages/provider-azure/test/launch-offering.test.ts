import { describe, expect, it } from 'vitest';
import { createInstanceType, createOffering, type Offering } from '@karpenter-ts/cloudprovider';
import { Requirements } from '@karpenter-ts/scheduling';
import {
  chooseAzureLaunchOffering,
  defaultAKSNodeClass,
  defaultNodeClass,
  getAzureInstanceTypes,
} from '../src/index.js';

const anyCapacity = Requirements.fromNodeSelectorRequirements([
  { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
]);
const onDemandOnly = Requirements.fromNodeSelectorRequirements([
  { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
]);

function size(name: string, offerings: Offering[]) {
  return createInstanceType({
    name,
    requirements: Requirements.fromLabels({ 'node.kubernetes.io/instance-type': name }),
    offerings,
    capacity: { cpu: 2000, memory: 8 * 2 ** 30, pods: 30 },
  });
}

const offer = (zone: string, capacityType: 'spot' | 'on-demand', price: number, available = true) =>
  createOffering({ zone, capacityType, price, available });

describe('chooseAzureLaunchOffering', () => {
  it('launches spot when the node claim allows spot, even at the same price as on-demand', () => {
    const d2 = size('Standard_D2s_v5', [
      offer('eastus-1', 'on-demand', 0.096),
      offer('eastus-1', 'spot', 0.096),
    ]);
    const chosen = chooseAzureLaunchOffering([d2], anyCapacity);
    expect(chosen?.offering.capacityType).toBe('spot');
  });

  it('launches on-demand when the node claim allows only on-demand', () => {
    const d2 = size('Standard_D2s_v5', [
      offer('eastus-1', 'spot', 0.02),
      offer('eastus-1', 'on-demand', 0.096),
    ]);
    expect(chooseAzureLaunchOffering([d2], onDemandOnly)?.offering.capacityType).toBe('on-demand');
  });

  it('launches on-demand when the size has no available spot offering', () => {
    const d2 = size('Standard_D2s_v5', [
      offer('eastus-1', 'spot', 0.02, false),
      offer('eastus-1', 'on-demand', 0.096),
    ]);
    expect(chooseAzureLaunchOffering([d2], anyCapacity)?.offering.capacityType).toBe('on-demand');
  });

  it('picks the size whose cheapest compatible offering is cheapest, whatever the option order', () => {
    const big = size('Standard_D4s_v5', [offer('eastus-1', 'on-demand', 0.192)]);
    const small = size('Standard_D2s_v5', [offer('eastus-2', 'on-demand', 0.096)]);
    expect(chooseAzureLaunchOffering([big, small], onDemandOnly)?.instanceType.name).toBe(
      'Standard_D2s_v5',
    );
  });

  it('breaks a price tie between sizes by name', () => {
    const b = size('Standard_D2as_v5', [offer('eastus-1', 'on-demand', 0.096)]);
    const a = size('Standard_D2a_v4', [offer('eastus-1', 'on-demand', 0.096)]);
    expect(chooseAzureLaunchOffering([b, a], onDemandOnly)?.instanceType.name).toBe(
      'Standard_D2a_v4',
    );
  });

  it('prefers a zonal offering to the regional one at the same price, then the first zone by name', () => {
    const d2 = size('Standard_D2s_v5', [
      offer('0', 'on-demand', 0.096),
      offer('eastus-3', 'on-demand', 0.096),
      offer('eastus-2', 'on-demand', 0.096),
    ]);
    expect(chooseAzureLaunchOffering([d2], onDemandOnly)?.offering.zone).toBe('eastus-2');
  });

  it('keeps to the zones the requirements allow', () => {
    const d2 = size('Standard_D2s_v5', [
      offer('eastus-1', 'on-demand', 0.096),
      offer('eastus-3', 'on-demand', 0.096),
    ]);
    const zone3 = Requirements.fromNodeSelectorRequirements([
      { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eastus-3'] },
    ]);
    expect(chooseAzureLaunchOffering([d2], zone3)?.offering.zone).toBe('eastus-3');
  });

  it('returns undefined when no option has an available compatible offering', () => {
    const d2 = size('Standard_D2s_v5', [offer('eastus-1', 'spot', 0.02)]);
    expect(chooseAzureLaunchOffering([d2], onDemandOnly)).toBeUndefined();
  });

  it('launches spot on the shipped eastus catalog, priced as on-demand (no spot prices in the static data)', () => {
    const types = getAzureInstanceTypes({
      region: 'eastus',
      nodeClass: defaultAKSNodeClass(defaultNodeClass()),
    }).filter((it) => it.name === 'Standard_D2s_v5');
    const chosen = chooseAzureLaunchOffering(types, anyCapacity);
    expect(chosen?.offering.capacityType).toBe('spot');
    const onDemand = types[0]?.offerings.find(
      (o) => o.capacityType === 'on-demand' && o.zone === chosen?.offering.zone,
    );
    expect(chosen?.offering.price).toBe(onDemand?.price);
  });
});
