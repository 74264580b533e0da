/**
 * Upstream's feature gates (`FEATURE_GATES` / `--feature-gates`):
 * a comma-separated `Name=bool` list over these defaults. Unknown names and non-boolean values
 * fail startup, as upstream's parser does.
 */
import { parseGoBool } from './bool.js';

/** Every gate upstream knows, with its default. */
export const FeatureGateDefaults = {
  NodeRepair: false,
  ReservedCapacity: true,
  SpotToSpotConsolidation: false,
  NodeOverlay: false,
  StaticCapacity: false,
  CapacityBuffer: false,
} as const;

/** A gate name. */
export type FeatureGate = keyof typeof FeatureGateDefaults;

/** Every gate with its effective value. */
export type FeatureGates = Readonly<Record<FeatureGate, boolean>>;

/**
 * Parses `A=true,B=false` (spaces around entries allowed, empty string = all defaults) over
 * {@link FeatureGateDefaults}. Raises RangeError naming the bad entry.
 */
export function parseFeatureGates(text: string): FeatureGates {
  const gates: Record<string, boolean> = { ...FeatureGateDefaults };
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    if (eq < 0) throw new RangeError(`"${entry}" is not Name=true|false`);
    const name = entry.slice(0, eq).trim();
    if (!Object.hasOwn(FeatureGateDefaults, name)) {
      throw new RangeError(
        `unknown feature gate "${name}" (known: ${Object.keys(FeatureGateDefaults).join(', ')})`,
      );
    }
    gates[name] = parseGoBool(entry.slice(eq + 1).trim(), `feature gate ${name}`);
  }
  return gates as FeatureGates;
}

/** Formats gates as `A=true,B=false` (all gates, in declaration order). */
export function formatFeatureGates(gates: FeatureGates): string {
  return (Object.keys(FeatureGateDefaults) as FeatureGate[])
    .map((g) => `${g}=${gates[g]}`)
    .join(',');
}
