/**
 * The in-memory cluster the CLI decides with: a snapshot loaded into a MemoryKubeClient on a
 * manual clock, the sim cloud over the chosen cloud's catalog adopting the snapshot's machines
 * (launching as the chosen provider ranks offerings, see ranked-launch.ts), and every controller of @karpenter-ts/controllers in its ControllerLoop (with the loop's
 * kube-scheduler, kubelet and ReplicaSet stand-ins). The same code as the controller decides
 * with; only where the state comes from differs.
 */
import type { MinValuesPolicy, PreferencePolicy } from '@karpenter-ts/scheduling';
import {
  ControllerLoop,
  loadSnapshot,
  ManualClock,
  MemoryKubeClient,
  seedSnapshotDrift,
  SnapshotError,
  type DisruptionObserver,
  type LoadedSnapshot,
} from '@karpenter-ts/controllers';
import type { Cloud } from '../clouds/cloud.js';
import { CliError } from '../errors.js';
import type { SnapshotRead } from '../snapshot/read-snapshot.js';
import { checkCatalogSize } from './catalog-size.js';
import { RankedLaunchCloud } from './ranked-launch.js';
import { clusterCloud, overlaidClusterCloud, type ClusterCloud } from './sim-cloud.js';

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** The clock's start. */
  readonly now: Date;
  readonly solver?: 'wasm' | 'ts';
  readonly preferencePolicy?: PreferencePolicy;
  readonly minValuesPolicy?: MinValuesPolicy;
  /** Feature gate `SpotToSpotConsolidation`; default false. */
  readonly spotToSpotConsolidation?: boolean;
  /** Feature gate `NodeOverlay`; default false (upstream's). The snapshot's NodeOverlays apply. */
  readonly nodeOverlay?: boolean;
  /** Hooks of the disruption controllers (commands started, ...). */
  readonly disruptionObserver?: DisruptionObserver;
  /** Run the disruption controller; default true (`simulate` only provisions). */
  readonly disruption?: boolean;
}

/** A started in-memory cluster. */
export interface RunningCluster {
  readonly clock: ManualClock;
  readonly client: MemoryKubeClient;
  readonly cloud: ClusterCloud;
  readonly loop: ControllerLoop;
  readonly loaded: LoadedSnapshot;
}

/**
 * Loads `read` into a new in-memory cluster on `cloud` and starts its controllers' informers
 * (nothing runs until the caller steps the loop or asks for a plan). Raises CliError with one
 * line per snapshot problem (see the controllers' snapshotProblems), having loaded nothing, or
 * when the NodePools pass the scheduler's size bound (see checkCatalogSize).
 */
export async function startCluster(
  read: SnapshotRead,
  cloud: Cloud,
  options: ClusterOptions,
): Promise<RunningCluster> {
  const clock = new ManualClock(options.now.getTime());
  // Repeated events once each: the results read only each pod's latest ones, and a backlog
  // pending through many passes would otherwise hold an event per pod and pass.
  const client = new MemoryKubeClient({ clock, distinctEvents: true });
  const simCloud = clusterCloud(cloud, read.plan.pools, clock, read.snapshot);
  checkCatalogSize(read.plan.pools, simCloud.instanceTypes);
  let loaded: LoadedSnapshot;
  try {
    loaded = await loadSnapshot(client, read.snapshot);
  } catch (err) {
    if (err instanceof SnapshotError) throw new CliError(err.message, 1, { cause: err });
    throw err;
  }
  seedSnapshotDrift(simCloud.provider, read.snapshot);
  // Azure and AWS launch by their own ranking; the sim cloud is the controller's sim provider.
  const cloudProvider =
    cloud.name === 'sim'
      ? simCloud.provider
      : new RankedLaunchCloud(simCloud.provider, cloud, simCloud.instanceTypes);
  const loop = new ControllerLoop({
    client,
    cloudProvider,
    clock,
    provisioner: {
      solver: options.solver ?? 'wasm',
      // The provider's labels are well known to the scheduler, as the controller wires them.
      extraWellKnownLabels: [...cloud.wellKnownLabels],
      ...(options.preferencePolicy ? { preferencePolicy: options.preferencePolicy } : {}),
      ...(options.minValuesPolicy ? { minValuesPolicy: options.minValuesPolicy } : {}),
    },
    ...(options.spotToSpotConsolidation !== undefined
      ? { spotToSpotConsolidation: options.spotToSpotConsolidation }
      : {}),
    ...(options.disruptionObserver ? { disruptionObserver: options.disruptionObserver } : {}),
    ...(options.nodeOverlay === true ? { nodeOverlay: true } : {}),
    ...(options.disruption === false ? { disruption: false } : {}),
  });
  for (const set of read.replicaSets) loop.replicaSets.add(set);
  await loop.start();
  const store = loop.instanceTypeStore;
  const view = store === undefined ? simCloud : overlaidClusterCloud(simCloud, store);
  return { clock, client, cloud: view, loop, loaded };
}
