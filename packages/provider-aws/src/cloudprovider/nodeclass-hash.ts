/**
 * The EC2NodeClass drift hash (NodeClassDrift): the spec without
 * the selector terms (subnets, security groups, capacity reservations, AMIs), `amiFamily` and
 * `ipPrefixCount`, plus the resolved AMI family. Changes to those are seen as AMI, subnet or
 * security group drift instead. The value is sha256 over canonical JSON (sorted keys), not
 * upstream's hashstructure number: it is only compared with hashes this provider wrote, so the
 * version is our own (`ts-v1`), not upstream's `v6`.
 */
import { createHash } from 'node:crypto';
import { resolveAMIFamily, type EC2NodeClass } from '../ec2nodeclass.js';

/** On EC2NodeClass and NodeClaim. */
export const EC2NodeClassHashAnnotation = 'karpenter.k8s.aws/ec2nodeclass-hash';
/** On EC2NodeClass and NodeClaim. */
export const EC2NodeClassHashVersionAnnotation = 'karpenter.k8s.aws/ec2nodeclass-hash-version';
/** The current hash version. */
export const EC2NodeClassHashVersion = 'ts-v1';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  return value;
}

/** Hex sha256 of the hashed part of the spec (see the module comment). */
export function ec2NodeClassHash(nodeClass: EC2NodeClass): string {
  const {
    subnetSelectorTerms: _s,
    securityGroupSelectorTerms: _g,
    capacityReservationSelectorTerms: _c,
    amiSelectorTerms: _a,
    amiFamily: _f,
    ipPrefixCount: _i,
    ...rest
  } = nodeClass.spec;
  const body = JSON.stringify(
    canonical({ ...rest, resolvedAMIFamily: resolveAMIFamily(nodeClass.spec) }),
  );
  return createHash('sha256').update(body).digest('hex');
}
