/**
 * Machine-readable output: JSON and YAML documents on stdout.
 */
import { stringify } from 'yaml';

/** Output formats of the commands that print results. */
export type OutputFormat = 'table' | 'json' | 'yaml';

/** Every output format, for the `--output` option's choices. */
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'yaml'];

/** `value` as pretty JSON (2-space indent) with a trailing newline. */
export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** `value` as a YAML document (block style, no line folding). */
export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0 });
}
