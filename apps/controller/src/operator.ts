/**
 * The operator process: options → logger, metrics and health servers → cluster connection and
 * caches → leader election → controllers; SIGTERM/SIGINT stop it gracefully (controllers
 * drain their running reconciles, the Lease is released, informers stop, servers close), at any
 * point: a signal during startup (e.g. while caches sync) stops what has started, and the
 * process exits 0, as controller-runtime's manager does when its context ends.
 * Losing the Lease ends the process with exit code 1, as controller-runtime's manager does, so
 * the pod restarts as a follower.
 */
import { hostname } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import {
  FileMachineStore,
  KwokCloudProvider,
  KwokWellKnownLabels,
  SimCloudProvider,
  kwokInstanceTypes,
  systemClock,
  type CloudProvider,
} from '@karpenter-ts/cloudprovider';
import type { LeaderElector } from '@karpenter-ts/kube';
import {
  AKSNodeClassResource,
  type AzureCloudProvider,
  type ArmClientOptions,
} from '@karpenter-ts/provider-azure';
import { connectCluster, podNamespace, type ClusterRuntime } from './kube/cluster.js';
import { informerFailureHint } from './kube/informer-failure-hint.js';
import { HealthChecks } from './observability/health.js';
import { startHttpServer, type RunningServer } from './observability/http-server.js';
import { componentLogger, createLogger, type Logger } from './observability/logger.js';
import { OperatorMetrics } from './observability/metrics.js';
import { WiredProviders, type OperatorOptions } from './options/options.js';
import { wireAzureProvider } from './providers/azure-provider.js';
import { EC2NodeClassResource, wireAwsProvider } from './providers/aws-provider.js';
import { readAwsSettings, type AwsSettings } from './providers/aws-settings.js';
import type { AwsCloudProvider } from '@karpenter-ts/provider-aws';
import { readAzureSettings, type AzureSettings } from './providers/azure-settings.js';
import { MiB } from './runtime/heap-limit.js';
import { errorText, Manager, type ManagerOptions } from './runtime/manager.js';
import { queueWorkers } from './runtime/workers.js';
import { kwokClusterApi } from './sim/kwok-cluster-api.js';
import { reconcileSimNodeClass, SimNodeClassResource } from './sim/sim-nodeclass.js';
import { SlowCreateCloudProvider } from './sim/slow-create.js';

/**
 * Seconds the caches may take to sync at startup before the operator gives up: 120, the default
 * `CacheSyncTimeout` of controller-runtime's manager (2 min), which likewise fails the manager's
 * start when its caches have not synced by then. Until then every failed list or watch is logged
 * as a warning and retried with backoff; after it {@link startOperator} raises an Error naming the
 * caches that did not sync and the last failure, and the binary exits 1.
 */
export const CACHE_SYNC_TIMEOUT_SECONDS = 120;

/**
 * What {@link startOperator} raises when SIGTERM or SIGINT arrived before it finished starting:
 * what had started is stopped (logs `shutting down` with the reason, then `stopped`); the binary
 * exits 0.
 */
export class StartupInterrupted extends Error {
  /** E.g. `received SIGTERM`. */
  readonly reason: string;

  constructor(reason: string) {
    super(`startup interrupted: ${reason}`);
    this.name = 'StartupInterrupted';
    this.reason = reason;
  }
}

/** A running operator. */
export interface RunningOperator {
  readonly metricsPort: number;
  readonly healthPort: number;
  /** Resolves with the exit code once the operator has stopped. */
  readonly done: Promise<number>;
  /** Stops gracefully (what SIGTERM does); resolves when stopped. */
  shutdown(reason: string): Promise<void>;
  /** The controllers, once this replica leads. */
  readonly manager: Manager | undefined;
  /** The cloud provider the controllers use (`--provider`), undecorated. */
  readonly cloudProvider: CloudProvider;
  /** `--provider sim`: the sim cloud in kwok-like mode (its `inner` lists the running machines). */
  readonly sim: KwokCloudProvider | undefined;
  /** `--provider azure`: the Azure provider (its `unavailableOfferings` cache, garbage listing). */
  readonly azure: AzureCloudProvider | undefined;
  /** `--provider aws`: the AWS provider (its `unavailableOfferings` cache). */
  readonly aws: AwsCloudProvider | undefined;
}

/** Dependencies {@link startOperator} takes from the process (tests pass their own). */
export interface OperatorEnvironment {
  readonly version: string;
  readonly logger?: Logger;
  /** Install SIGTERM/SIGINT handlers; default true. */
  readonly handleSignals?: boolean;
  /** Seconds the caches may take to sync at startup; default {@link CACHE_SYNC_TIMEOUT_SECONDS}. */
  readonly cacheSyncTimeoutSeconds?: number;
  /** Environment variables the provider settings are read from; default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * `--provider azure` seams for tests: a credential instead of the configured mode's, and the
   * ARM operation poll interval in ms (default the provider's 3000).
   */
  readonly azure?: {
    readonly credential?: ArmClientOptions['credential'];
    readonly pollIntervalMs?: number;
    /** Retail Prices API base URL (default: public endpoint in the public cloud, else none). */
    readonly retailPricesEndpoint?: string;
  };
}

/**
 * Starts the operator. Resolves once servers listen and caches have synced (controllers start
 * when the Lease is won). Raises Error with a clear message for a provider that is not wired,
 * no kubeconfig (`no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a cluster`), or
 * caches that do not sync within `env.cacheSyncTimeoutSeconds` (an unreachable API server, a
 * missing CRD; each failed attempt before that is logged as a warning); whatever started is
 * stopped. With `env.handleSignals`, SIGTERM or SIGINT before it resolves raises
 * {@link StartupInterrupted} once what started has stopped. Logs the V8 heap limit in effect
 * (`heapLimitMiB`, see runtime/heap-limit.ts) and the queues' workers for `--cpu-requests`.
 */
export async function startOperator(
  options: OperatorOptions,
  env: OperatorEnvironment,
): Promise<RunningOperator> {
  const logger =
    env.logger ??
    createLogger({
      level: options.logLevel,
      outputPaths: options.logOutputPaths,
      commit: env.version,
    });
  if (!WiredProviders.has(options.provider)) {
    throw new Error(
      `--provider ${options.provider} is not wired into the controller yet; use --provider sim, azure or aws`,
    );
  }
  // Read before anything starts, so bad settings fail fast with every problem named.
  const azureSettings: AzureSettings | undefined =
    options.provider === 'azure' ? readAzureSettings(env.env ?? process.env) : undefined;
  const awsSettings: AwsSettings | undefined =
    options.provider === 'aws'
      ? readAwsSettings(env.env ?? process.env, { interruptionQueue: options.interruptionQueue })
      : undefined;
  const metrics = new OperatorMetrics({
    version: env.version,
    commit: env.version,
    observeState: !options.disableClusterStateObservability,
  });
  const health = new HealthChecks();
  const workers = queueWorkers(options.cpuRequests);
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
    cleanups.length = 0;
  };

  let manager: Manager | undefined;
  let elector: LeaderElector | undefined;
  let cluster: ClusterRuntime | undefined;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  let stopping: Promise<void> | undefined;

  const shutdown = (reason: string, code = 0): Promise<void> =>
    (stopping ??= (async () => {
      logger.info({ reason }, 'shutting down');
      await manager
        ?.stop()
        .catch((err: unknown) => logger.error({ error: errorText(err) }, 'stopping controllers'));
      await elector
        ?.stop()
        .catch((err: unknown) => logger.error({ error: errorText(err) }, 'releasing the lease'));
      await cluster
        ?.stop()
        .catch((err: unknown) => logger.error({ error: errorText(err) }, 'stopping informers'));
      await cleanup();
      logger.info('stopped');
      resolveDone(code);
    })());

  // Until startup is done a signal only aborts it; the catch below then shuts down what started
  // (nothing runs alongside the startup steps, so nothing starts after the shutdown).
  const startup = new AbortController();
  let started = false;
  if (env.handleSignals !== false) {
    const onSignal = (signal: NodeJS.Signals) => {
      const reason = `received ${signal}`;
      if (started) void shutdown(reason);
      else startup.abort(new StartupInterrupted(reason));
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    cleanups.push(async () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    });
  }
  logger.info(
    {
      pid: process.pid,
      heapLimitMiB: Math.floor(getHeapStatistics().heap_size_limit / MiB),
      memoryLimit: options.memoryLimit,
      cpuRequests: options.cpuRequests,
      workers,
    },
    'starting',
  );

  try {
    const metricsServer: RunningServer = await startHttpServer(
      options.metricsPort,
      {
        '/metrics': async () => {
          const { contentType, body } = await metrics.exposition();
          return { status: 200, contentType, body };
        },
      },
      undefined,
      '--metrics-port (METRICS_PORT)',
    );
    cleanups.push(() => metricsServer.close());
    startup.signal.throwIfAborted();
    const healthServer = await startHttpServer(
      options.healthProbePort,
      health.routes(),
      undefined,
      '--health-probe-port (HEALTH_PROBE_PORT)',
    );
    cleanups.push(() => healthServer.close());
    startup.signal.throwIfAborted();

    cluster = connectCluster({
      kubeconfig: options.kubeconfig,
      nodeClasses: [
        azureSettings !== undefined
          ? AKSNodeClassResource
          : awsSettings !== undefined
            ? EC2NodeClassResource
            : SimNodeClassResource,
      ],
      userAgent: `karpenter-ts-controller/${env.version}`,
      // NodeOverlays are cached only when their gate is on (the CRD and RBAC may be absent).
      nodeOverlays: options.featureGates.NodeOverlay,
      rateLimit: { qps: options.kubeClientQps, burst: options.kubeClientBurst },
      onInformerError: (err, resource) => {
        const hint = informerFailureHint(err, resource);
        logger.warn(
          { resource, error: errorText(err), ...(hint !== undefined ? { hint } : {}) },
          'listing or watching failed; retrying',
        );
      },
    });
    const c = cluster;
    health.addReadyCheck('cache-sync', () => c.synced);
    health.addReadyCheck('crd', () => c.crdsResolvable());
    const syncTimeoutSeconds = env.cacheSyncTimeoutSeconds ?? CACHE_SYNC_TIMEOUT_SECONDS;
    logger.info(
      { server: cluster.server, provider: options.provider, syncTimeoutSeconds },
      'connecting to the API server',
    );
    await cluster.start(syncTimeoutSeconds * 1000, startup.signal);
    logger.info('caches synced');

    const client = cluster.client;
    const wiring =
      azureSettings !== undefined
        ? azureWiring(options, azureSettings, c, logger, env, cleanups)
        : awsSettings !== undefined
          ? awsWiring(options, awsSettings, c, logger, metrics)
          : simWiring(options, c, logger);
    const managerOptions: ManagerOptions = {
      client,
      cloudProvider: wiring.cloudProvider,
      clock: systemClock,
      logger,
      metrics,
      workers,
      provisioner: {
        idleSeconds: options.batchIdleDuration,
        maxSeconds: options.batchMaxDuration,
        preferencePolicy: options.preferencePolicy,
        minValuesPolicy: options.minValuesPolicy,
        extraWellKnownLabels: wiring.extraWellKnownLabels,
      },
      validation: { extraWellKnownLabels: wiring.extraWellKnownLabels },
      spotToSpotConsolidation: options.featureGates.SpotToSpotConsolidation,
      nodeRepair: options.featureGates.NodeRepair,
      nodeOverlay: options.featureGates.NodeOverlay,
      periodic: wiring.periodic,
      nodeClassReconcilers: wiring.nodeClassReconcilers,
      ...(wiring.garbageCollection !== undefined
        ? { garbageCollection: wiring.garbageCollection }
        : {}),
    };
    const startControllers = async () => {
      if (stopping !== undefined) return; // the Lease came while shutting down
      manager = new Manager(managerOptions);
      try {
        await manager.start();
      } catch (err) {
        logger.error({ error: errorText(err) }, 'controllers failed to start');
        void shutdown('controllers failed to start', 1);
      }
    };
    if (options.disableLeaderElection) {
      logger.info('leader election disabled; starting controllers');
      await startControllers();
      startup.signal.throwIfAborted();
    } else {
      const namespace = options.leaderElectionNamespace || podNamespace() || 'kube-system';
      const identity = `${hostname()}_${Math.random().toString(36).slice(2, 10)}`;
      const leading = metrics.leaderElectionStatus.labels({ name: options.leaderElectionName });
      leading.set(0);
      elector = cluster.leaderElector({
        name: options.leaderElectionName,
        namespace,
        identity,
        onStartedLeading: () => {
          logger.info(
            { lease: `${namespace}/${options.leaderElectionName}`, identity },
            'became leader; starting controllers',
          );
          leading.set(1);
          void startControllers();
        },
        onStoppedLeading: () => {
          leading.set(0);
          if (stopping === undefined) {
            logger.error('lost the leader election lease');
            void shutdown('lost the lease', 1);
          }
        },
        onNewLeader: (holder) => logger.info({ holder }, 'leader observed'),
        onError: (err) => logger.warn({ error: errorText(err) }, 'leader election attempt failed'),
      });
      elector.start();
      logger.info(
        { lease: `${namespace}/${options.leaderElectionName}`, identity },
        'waiting for the leader election lease',
      );
    }

    started = true;
    return {
      metricsPort: metricsServer.port,
      healthPort: healthServer.port,
      done,
      shutdown: (reason) => shutdown(reason),
      get manager() {
        return manager;
      },
      cloudProvider: wiring.provider,
      sim: wiring.sim,
      azure: wiring.azure,
      aws: wiring.aws,
    };
  } catch (err) {
    if (err instanceof StartupInterrupted) {
      await shutdown(err.reason);
      throw err;
    }
    await cluster?.stop().catch(() => {});
    await cleanup();
    throw err;
  }
}

/** What differs between providers in the controllers' setup. */
interface ProviderWiring {
  /** What the controllers call (maybe decorated, e.g. the sim's slow create). */
  readonly cloudProvider: CloudProvider;
  /** The provider itself. */
  readonly provider: CloudProvider;
  readonly sim: KwokCloudProvider | undefined;
  readonly azure: AzureCloudProvider | undefined;
  readonly aws?: AwsCloudProvider | undefined;
  readonly extraWellKnownLabels: readonly string[];
  readonly periodic: ManagerOptions['periodic'];
  readonly nodeClassReconcilers: ManagerOptions['nodeClassReconcilers'];
  /** The core garbage collection's options; undefined keeps its defaults. */
  readonly garbageCollection?: ManagerOptions['garbageCollection'];
}

/** `--provider sim`: the sim cloud in kwok-like mode over the cluster. */
function simWiring(
  options: OperatorOptions,
  cluster: ClusterRuntime,
  logger: Logger,
): ProviderWiring {
  const kwokLog = componentLogger(logger, 'kwok');
  // With a state directory the machines live in a file every replica on it shares, so they
  // outlive this process as a real cloud's instances do.
  const sim = new SimCloudProvider({
    instanceTypes: kwokInstanceTypes(),
    ...(options.simStateDir !== '' ? { store: new FileMachineStore(options.simStateDir) } : {}),
  });
  if (options.simStateDir !== '') {
    logger.info(
      { stateDir: options.simStateDir, machines: sim.instances().length },
      'sim cloud machines are kept in the state directory',
    );
  }
  const kwok = new KwokCloudProvider(sim, {
    api: kwokClusterApi(cluster.client, cluster.request),
    onError: (err, context) => kwokLog.warn({ error: errorText(err) }, context),
  });
  const client = cluster.client;
  return {
    cloudProvider:
      options.simCreateDelay > 0 ? new SlowCreateCloudProvider(kwok, options.simCreateDelay) : kwok,
    provider: kwok,
    sim: kwok,
    azure: undefined,
    extraWellKnownLabels: [...KwokWellKnownLabels],
    periodic: [{ name: 'kwok', intervalSeconds: 1, run: () => kwok.sync() }],
    nodeClassReconcilers: [(name) => reconcileSimNodeClass(client, systemClock, name)],
  };
}

/** `--provider azure`: AzureCloudProvider on ARM, AKSNodeClass status. */
function azureWiring(
  options: OperatorOptions,
  settings: AzureSettings,
  cluster: ClusterRuntime,
  logger: Logger,
  env: OperatorEnvironment,
  cleanups: (() => Promise<void>)[],
): ProviderWiring {
  const wired = wireAzureProvider({
    settings,
    clusterName: options.clusterName,
    client: cluster.client,
    request: cluster.request,
    clock: systemClock,
    logger: componentLogger(logger, 'azure'),
    userAgent: `karpenter-ts-controller/${env.version}`,
    ...(env.azure?.credential !== undefined ? { credential: env.azure.credential } : {}),
    ...(env.azure?.pollIntervalMs !== undefined
      ? { pollIntervalMs: env.azure.pollIntervalMs }
      : {}),
    ...(env.azure?.retailPricesEndpoint !== undefined
      ? { retailPricesEndpoint: env.azure.retailPricesEndpoint }
      : {}),
  });
  const refresher = wired.catalogRefresher;
  void refresher.start();
  cleanups.push(async () => refresher.stop());
  return {
    cloudProvider: wired.cloudProvider,
    provider: wired.cloudProvider,
    sim: undefined,
    azure: wired.cloudProvider,
    extraWellKnownLabels: wired.extraWellKnownLabels,
    periodic: wired.periodic,
    nodeClassReconcilers: [wired.nodeClassReconciler],
    // Azure's own GC alone collects unowned VMs (after 5 min by creation time, with their Nodes).
    garbageCollection: wired.garbageCollection,
  };
}

/** `--provider aws`: AwsCloudProvider on EC2, EC2NodeClass status, launch template GC. */
function awsWiring(
  options: OperatorOptions,
  settings: AwsSettings,
  cluster: ClusterRuntime,
  logger: Logger,
  metrics: OperatorMetrics,
): ProviderWiring {
  const wired = wireAwsProvider({
    settings,
    clusterName: options.clusterName,
    client: cluster.client,
    request: cluster.request,
    clock: systemClock,
    logger: componentLogger(logger, 'aws'),
    interruptionMetrics: metrics.interruptionMetrics(),
    reservedCapacity: options.featureGates.ReservedCapacity,
  });
  return {
    cloudProvider: wired.cloudProvider,
    provider: wired.cloudProvider,
    sim: undefined,
    azure: undefined,
    aws: wired.cloudProvider,
    extraWellKnownLabels: wired.extraWellKnownLabels,
    periodic: wired.periodic,
    nodeClassReconcilers: wired.nodeClassReconcilers,
  };
}
