/**
 * `--preference-policy` and `--min-values-policy`, as the controller's flags of the same names
 * (upstream's): how the provisioner's scheduler treats preferred affinities and spreads, and
 * NodePool `minValues` it cannot meet.
 */
import { Option, type Command } from 'commander';
import type { MinValuesPolicy, PreferencePolicy } from '@karpenter-ts/scheduling';

/** The two policies; undefined keeps the controller's defaults (Respect, Strict). */
export interface PolicyFlags {
  preferencePolicy?: PreferencePolicy;
  minValuesPolicy?: MinValuesPolicy;
}

/** Adds both options to `command`. */
export function addPolicyOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--preference-policy <policy>',
        'Respect: honour preferred affinities and ScheduleAnyway spreads, relaxing them when they cannot be met; Ignore: drop them (default Respect)',
      ).choices(['Respect', 'Ignore']),
    )
    .addOption(
      new Option(
        '--min-values-policy <policy>',
        "Strict: a NodePool's minValues must be met or the pod stays pending; BestEffort: lower them as far as needed (default Strict)",
      ).choices(['Strict', 'BestEffort']),
    );
}
