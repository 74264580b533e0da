/**
 * Feature gates of the controller the CLI decides like: `--node-overlay` turns on upstream's
 * `NodeOverlay` gate (off by default in the Karpenter version we follow, v1.14), so the input's
 * NodeOverlays change instance-type prices and capacity as they would in a cluster whose
 * controller runs with `FEATURE_GATES=NodeOverlay=true`.
 */
import type { Command } from 'commander';

/** The gate flags; undefined keeps upstream's defaults (off). */
export interface GateFlags {
  nodeOverlay?: boolean;
}

/** Adds `--node-overlay` to `command`. */
export function addGateOptions(command: Command): Command {
  return command.option(
    '--node-overlay',
    "enable the NodeOverlay feature gate (off by default, as upstream's): apply the input's NodeOverlays",
  );
}
