/**
 * Parsing of flag values shared by the commands. Every parser raises a UsageError (exit 2)
 * naming the flag and what it accepts.
 */
import type { NodeSelectorOperator, NodeSelectorRequirementWithMinValues } from '@karpenter-ts/api';
import { NodeSelectorOperators } from '@karpenter-ts/api';
import { UsageError } from '../errors.js';

/** Clouds the commands run against. */
export type CloudName = 'azure' | 'aws' | 'sim';

/** Every cloud name, for the `--cloud` option's choices. */
export const CLOUD_NAMES: readonly CloudName[] = ['azure', 'aws', 'sim'];

/** One cloud and region, as `--clouds azure:eastus,aws:us-east-1` names them. */
export interface CloudTarget {
  cloud: CloudName;
  /** `undefined` ⇒ the cloud's default region. */
  region: string | undefined;
}

/**
 * Parses `--scale F`: a plain decimal number greater than 0 (`2`, `0.5`, `.25`). Hex, exponent
 * and signed forms (`0x10`, `1e9`, `-1`) are refused rather than read as JavaScript numbers.
 * The pod count it leads to is capped when workloads are expanded (MAX_PENDING_PODS).
 */
export function parseScale(value: string): number {
  const scale = Number(value);
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(value.trim()) || !Number.isFinite(scale) || scale <= 0) {
    throw new UsageError(
      `--scale: expected a decimal number greater than 0 such as 2 or 0.5, got ${JSON.stringify(value)}`,
    );
  }
  return scale;
}

/**
 * Parses one `--requirements` value `KEY=OP[:V1,V2,...]`, e.g.
 * `karpenter.sh/capacity-type=In:spot,on-demand`, `karpenter.azure.com/sku-cpu=Gt:4`,
 * `kubernetes.io/arch=Exists`. `OP` is one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte.
 * In/NotIn need values; Gt/Lt/Gte/Lte exactly one integer; Exists/DoesNotExist none.
 */
export function parseRequirement(text: string): NodeSelectorRequirementWithMinValues {
  const usage = `--requirements: expected KEY=OP:V1,V2 (OP one of ${NodeSelectorOperators.join(', ')}), got ${JSON.stringify(text)}`;
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UsageError(usage);
  const key = text.slice(0, eq).trim();
  const rest = text.slice(eq + 1);
  const colon = rest.indexOf(':');
  const operator = (colon < 0 ? rest : rest.slice(0, colon)).trim();
  const values =
    colon < 0
      ? []
      : rest
          .slice(colon + 1)
          .split(',')
          .map((v) => v.trim())
          .filter((v) => v !== '');
  if (!(NodeSelectorOperators as readonly string[]).includes(operator)) throw new UsageError(usage);
  const op = operator as NodeSelectorOperator;
  if ((op === 'In' || op === 'NotIn') && values.length === 0) {
    throw new UsageError(
      `--requirements: ${key} ${op} needs at least one value (${key}=${op}:V1,V2)`,
    );
  }
  if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) {
    throw new UsageError(`--requirements: ${key} ${op} takes no values (${key}=${op})`);
  }
  if (
    (op === 'Gt' || op === 'Lt' || op === 'Gte' || op === 'Lte') &&
    (values.length !== 1 || !/^\d+$/.test(values[0]!))
  ) {
    throw new UsageError(
      `--requirements: ${key} ${op} needs one non-negative integer (${key}=${op}:4)`,
    );
  }
  return values.length > 0 ? { key, operator: op, values } : { key, operator: op };
}

/** Collects repeated and space-separated `--requirements` values into a list. */
export function collectRequirements(
  value: string,
  previous: NodeSelectorRequirementWithMinValues[] = [],
): NodeSelectorRequirementWithMinValues[] {
  return [...previous, parseRequirement(value)];
}

/** Parses `--clouds azure:eastus,aws:us-east-1,sim` (region optional per entry). */
export function parseCloudTargets(text: string): CloudTarget[] {
  const targets = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry): CloudTarget => {
      const [cloud, region] = entry.split(':', 2) as [string, string | undefined];
      if (!(CLOUD_NAMES as readonly string[]).includes(cloud)) {
        throw new UsageError(
          `--clouds: unknown cloud ${JSON.stringify(cloud)} (expected ${CLOUD_NAMES.join(', ')}, as CLOUD[:REGION])`,
        );
      }
      return { cloud: cloud as CloudName, region: region?.trim() || undefined };
    });
  if (targets.length === 0) throw new UsageError('--clouds: name at least one CLOUD[:REGION]');
  return targets;
}

/**
 * Parses `--now`: an RFC 3339 time with seconds and a zone (`2026-12-01T10:00:00Z`,
 * `2026-12-01T11:00:00.5+01:00`); anything else is a usage error naming the expected format.
 */
export function parseNow(value: string): Date {
  const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
  const ms = Date.parse(value);
  const m = rfc3339.exec(value.trim());
  // Date.parse rolls an impossible day forward (2026-02-30 is March 2); RFC 3339 does not.
  const real =
    m !== null &&
    new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).getUTCDate() === Number(m[3]);
  if (m === null || !real || Number.isNaN(ms) || Number(m[1]) < 1970) {
    throw new UsageError(
      `--now: expected an RFC 3339 time from 1970 on such as 2026-12-01T10:00:00Z (a real date, T, time with seconds, then Z or an offset such as +01:00), got ${JSON.stringify(value)}`,
    );
  }
  return new Date(ms);
}
