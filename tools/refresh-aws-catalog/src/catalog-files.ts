/**
 * Reading and writing the three catalog files of packages/provider-aws/data in their compact
 * layout (a `meta` object, then one record per line) so diffs stay reviewable.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InstanceTypeRecord, RegionOfferings, RegionPrices } from '@karpenter-ts/provider-aws';

export const InstanceTypesFile = 'instance-types.json';
export const OfferingsFile = 'instance-type-offerings.json';
export const PricingFile = 'pricing-on-demand.json';

/** instance-types.json. */
export interface InstanceTypesDocument {
  meta: Record<string, unknown>;
  types: InstanceTypeRecord[];
}

/** instance-type-offerings.json. */
export interface OfferingsDocument {
  meta: Record<string, unknown>;
  regions: Record<string, RegionOfferings>;
}

/** pricing-on-demand.json. */
export interface PricingDocument {
  meta: Record<string, unknown>;
  regions: Record<string, RegionPrices>;
}

/** Reads a catalog file, or returns `fallback` when it does not exist. Throws for unreadable JSON, naming the file. */
export async function readCatalogFile<T>(dir: string, file: string, fallback: T): Promise<T> {
  let text: string;
  try {
    text = await readFile(join(dir, file), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw err;
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new Error(`${join(dir, file)} is not valid JSON: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** Serialises instance-types.json: one record per line. */
export function formatInstanceTypes(doc: InstanceTypesDocument): string {
  const lines = doc.types.map((t) => JSON.stringify(t));
  return `{"meta":${JSON.stringify(doc.meta)},\n"types":[\n${lines.join(',\n')}\n]}\n`;
}

/** Serialises instance-type-offerings.json: one instance type per line. */
export function formatOfferings(doc: OfferingsDocument): string {
  const regions = Object.entries(doc.regions).map(([region, r]) => {
    const types = Object.entries(r.types).map(
      ([t, z]) => `${JSON.stringify(t)}:${JSON.stringify(z)}`,
    );
    return `${JSON.stringify(region)}:{"zones":${JSON.stringify(r.zones)},"types":{\n${types.join(',\n')}\n}}`;
  });
  return `{"meta":${JSON.stringify(doc.meta)},\n"regions":{\n${regions.join(',\n')}\n}}\n`;
}

/** Serialises pricing-on-demand.json: one price per line. */
export function formatPricing(doc: PricingDocument): string {
  const regions = Object.entries(doc.regions).map(([region, r]) => {
    const { prices, ...head } = r;
    const lines = Object.entries(prices).map(
      ([t, p]) => `${JSON.stringify(t)}:${JSON.stringify(p)}`,
    );
    const headJson = JSON.stringify(head).slice(0, -1);
    return `${JSON.stringify(region)}:${headJson},"prices":{\n${lines.join(',\n')}\n}}`;
  });
  return `{"meta":${JSON.stringify(doc.meta)},\n"regions":{\n${regions.join(',\n')}\n}}\n`;
}

/** Writes a file in `dir`. */
export async function writeCatalogFile(dir: string, file: string, text: string): Promise<void> {
  await writeFile(join(dir, file), text, 'utf8');
}
