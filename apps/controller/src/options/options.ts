/**
 * The operator's options, with upstream's flag names, environment variables and defaults
 * (`pkg/operator/options`), plus `--provider` and `--cluster-name`.
 * An environment variable replaces the default; a flag overrides both. Every value is checked
 * at startup: a bad one fails with a message naming the flag, the variable and the rule.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { fatalErrorLine } from '../fatal-error.js';
import { parseGoBool } from './bool.js';
import { parseGoDuration } from './duration.js';
import { parseFeatureGates, type FeatureGates } from './feature-gates.js';

/** Clouds the operator knows; {@link WiredProviders} are the ones it can run. */
export const Providers = ['sim', 'azure', 'aws'] as const;
/** A provider name. */
export type Provider = (typeof Providers)[number];
/** Providers the operator can run. */
export const WiredProviders: ReadonlySet<Provider> = new Set(['sim', 'azure', 'aws']);

/** Log levels (upstream: debug, info, error; warn is accepted too). */
export const LogLevels = ['debug', 'info', 'warn', 'error'] as const;
/** A log level. */
export type LogLevel = (typeof LogLevels)[number];

/** Every option, parsed. Durations in seconds; ports 0–65535 (0 = any free port). */
export interface OperatorOptions {
  readonly provider: Provider;
  /** The cluster's name (tags, node bootstrap); may be empty for `sim`. */
  readonly clusterName: string;
  /** Path of a kubeconfig; empty = in-cluster config or `~/.kube/config`. */
  readonly kubeconfig: string;
  /** Vestigial upstream option (webhooks were removed); accepted and unused. */
  readonly karpenterService: string;
  readonly metricsPort: number;
  readonly healthProbePort: number;
  /** Client-side rate limit of API requests, per second. */
  readonly kubeClientQps: number;
  readonly kubeClientBurst: number;
  readonly enableProfiling: boolean;
  readonly disableControllerWarmup: boolean;
  readonly disableLeaderElection: boolean;
  readonly disableClusterStateObservability: boolean;
  readonly leaderElectionName: string;
  /** Empty = the pod's namespace in a cluster, else `kube-system`. */
  readonly leaderElectionNamespace: string;
  /**
   * The container's memory limit, bytes; 0 or less (default -1) = none. When set, the binary
   * sizes the V8 heap within 90 % of it (runtime/heap-limit.ts), as upstream sets Go's GC soft
   * limit to 90 %.
   */
  readonly memoryLimit: number;
  /**
   * Millicores the pod requests; the reconcile workers of the NodeClaim lifecycle, termination
   * and pod trigger queues scale with ceil(millicores / 1000) as upstream's (runtime/workers.ts).
   */
  readonly cpuRequests: number;
  readonly logLevel: LogLevel;
  readonly logOutputPaths: readonly string[];
  readonly logErrorOutputPaths: readonly string[];
  /** Seconds. */
  readonly batchMaxDuration: number;
  /** Seconds. */
  readonly batchIdleDuration: number;
  readonly preferencePolicy: 'Respect' | 'Ignore';
  readonly minValuesPolicy: 'Strict' | 'BestEffort';
  readonly ignoreDraRequests: boolean;
  readonly featureGates: FeatureGates;
  /**
   * `--provider sim`: directory of the sim cloud's state file, so its machines survive a restart
   * and are shared by the replicas that mount it; empty = memory only.
   */
  readonly simStateDir: string;
  /**
   * `--provider sim`: seconds the sim cloud takes to answer a create after the machine is
   * running (a slow cloud API; fault tests kill the controller inside this window).
   */
  readonly simCreateDelay: number;
  /**
   * `--provider aws`: the SQS queue (a name, or a queue URL) EventBridge puts spot interruption,
   * rebalance, AWS Health and instance state-change messages on; empty = no interruption
   * handling, as upstream.
   */
  readonly interruptionQueue: string;
}

/** What {@link parseOptions} decided: run with options, or exit (help, version, bad input). */
export type ParseResult =
  | { readonly kind: 'run'; readonly options: OperatorOptions }
  | { readonly kind: 'exit'; readonly code: number; readonly output: string };

const integer =
  (min: number, max: number, what: string) =>
  (value: string): number => {
    const n = Number(value.trim());
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${what} must be an integer from ${min} to ${max}`);
    }
    return n;
  };

const positiveNumber =
  (what: string) =>
  (value: string): number => {
    const n = Number(value.trim());
    if (value.trim() === '' || !Number.isFinite(n) || n <= 0) {
      throw new InvalidArgumentError(`${what} must be a number greater than 0`);
    }
    return n;
  };

const duration = (value: string): number => {
  let seconds: number;
  try {
    seconds = parseGoDuration(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  if (!(seconds > 0)) throw new InvalidArgumentError('the duration must be greater than 0');
  return seconds;
};

const delay = (value: string): number => {
  let seconds: number;
  try {
    seconds = parseGoDuration(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  if (seconds < 0) throw new InvalidArgumentError('the duration must not be negative');
  return seconds;
};

const bool = (value: string | boolean): boolean => {
  if (typeof value === 'boolean') return value;
  try {
    return parseGoBool(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
};

const gates = (value: string): FeatureGates => {
  try {
    return parseFeatureGates(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
};

const paths = (value: string): string[] => {
  const list = value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (list.length === 0)
    throw new InvalidArgumentError('give at least one path (stdout, stderr or a file)');
  return list;
};

function option(flags: string, description: string, env: string): Option {
  return new Option(flags, description).env(env);
}

function boolOption(name: string, description: string, env: string, dflt: boolean): Option {
  return option(`--${name} [bool]`, description, env).argParser(bool).default(dflt);
}

/** Builds the commander program (also used to print `--help`). */
export function buildOptionsProgram(version: string): Command {
  return new Command('karpenter-ts-controller')
    .description(
      'The karpenter-ts operator: watches pending pods, launches nodes for them through a cloud ' +
        'provider and runs their lifecycle. Every option also reads the environment variable shown ' +
        '(a flag overrides it). --provider sim, azure and aws are wired (azure reads its settings from ' +
        'AZURE_SUBSCRIPTION_ID, AZURE_LOCATION, AZURE_NODE_RESOURCE_GROUP, VNET_SUBNET_ID, ' +
        'CLUSTER_ENDPOINT, KUBELET_BOOTSTRAP_TOKEN, SSH_PUBLIC_KEY, ...; aws from AWS_REGION, ' +
        'CLUSTER_ENDPOINT, CLUSTER_CA_BUNDLE, AWS_ENDPOINT_URL and the AWS SDK credential chain; ' +
        'see the README).',
    )
    .version(version, '-V, --version')
    .helpOption('-h, --help', 'show this help')
    .addOption(
      option(
        '--provider <name>',
        'cloud provider: sim (a simulated, kwok-like cloud), azure, aws',
        'PROVIDER',
      )
        .choices(Providers)
        .default('sim'),
    )
    .addOption(option('--cluster-name <name>', "the cluster's name", 'CLUSTER_NAME').default(''))
    .addOption(
      option(
        '--kubeconfig <path>',
        'kubeconfig file (default: in-cluster, then ~/.kube/config)',
        'KUBECONFIG',
      ).default(''),
    )
    .addOption(
      option(
        '--karpenter-service <name>',
        'unused; kept for compatibility with upstream',
        'KARPENTER_SERVICE',
      ).default(''),
    )
    .addOption(
      option('--metrics-port <port>', 'port of the Prometheus /metrics endpoint', 'METRICS_PORT')
        .argParser(integer(0, 65535, 'the port'))
        .default(8080),
    )
    .addOption(
      option('--health-probe-port <port>', 'port of /healthz and /readyz', 'HEALTH_PROBE_PORT')
        .argParser(integer(0, 65535, 'the port'))
        .default(8081),
    )
    .addOption(
      option(
        '--kube-client-qps <qps>',
        'API requests per second the client may make',
        'KUBE_CLIENT_QPS',
      )
        .argParser(positiveNumber('qps'))
        .default(200),
    )
    .addOption(
      option('--kube-client-burst <n>', 'API request burst above the qps', 'KUBE_CLIENT_BURST')
        .argParser(integer(1, 1_000_000, 'burst'))
        .default(300),
    )
    .addOption(
      boolOption(
        'enable-profiling',
        'serve profiling data on the metrics server',
        'ENABLE_PROFILING',
        false,
      ),
    )
    .addOption(
      boolOption(
        'disable-controller-warmup',
        'do not pre-start caches before winning the election',
        'DISABLE_CONTROLLER_WARMUP',
        true,
      ),
    )
    .addOption(
      boolOption(
        'disable-leader-election',
        'run without a leader election Lease (one replica only)',
        'DISABLE_LEADER_ELECTION',
        false,
      ),
    )
    .addOption(
      boolOption(
        'disable-cluster-state-observability',
        'do not export the pod, node and nodepool state metrics',
        'DISABLE_CLUSTER_STATE_OBSERVABILITY',
        false,
      ),
    )
    .addOption(
      option(
        '--leader-election-name <name>',
        'name of the leader election Lease',
        'LEADER_ELECTION_NAME',
      ).default('karpenter-leader-election'),
    )
    .addOption(
      option(
        '--leader-election-namespace <ns>',
        "namespace of the Lease (default: the pod's namespace, else kube-system)",
        'LEADER_ELECTION_NAMESPACE',
      ).default(''),
    )
    .addOption(
      option(
        '--memory-limit <bytes>',
        'memory limit of the container in bytes; the V8 heap is sized within 90 % of it; -1 for none',
        'MEMORY_LIMIT',
      )
        .argParser(integer(-1, Number.MAX_SAFE_INTEGER, 'the memory limit'))
        .default(-1),
    )
    .addOption(
      option(
        '--cpu-requests <millicores>',
        'CPU the container requests, in millicores; reconcile workers scale with it',
        'CPU_REQUESTS',
      )
        .argParser(integer(1, 1_000_000, 'cpu requests'))
        .default(1000),
    )
    .addOption(
      option('--log-level <level>', 'log level', 'LOG_LEVEL').choices(LogLevels).default('info'),
    )
    .addOption(
      option(
        '--log-output-paths <paths>',
        'comma-separated log destinations: stdout, stderr or files',
        'LOG_OUTPUT_PATHS',
      )
        .argParser(paths)
        .default(['stdout'], 'stdout'),
    )
    .addOption(
      option(
        '--log-error-output-paths <paths>',
        'where startup and logger errors go',
        'LOG_ERROR_OUTPUT_PATHS',
      )
        .argParser(paths)
        .default(['stderr'], 'stderr'),
    )
    .addOption(
      option(
        '--batch-max-duration <duration>',
        'longest a provisioning batch stays open (Go duration)',
        'BATCH_MAX_DURATION',
      )
        .argParser(duration)
        .default(10, '10s'),
    )
    .addOption(
      option(
        '--batch-idle-duration <duration>',
        'a batch closes after this long without a new pod',
        'BATCH_IDLE_DURATION',
      )
        .argParser(duration)
        .default(1, '1s'),
    )
    .addOption(
      option(
        '--preference-policy <policy>',
        'Respect or Ignore preferred affinities and ScheduleAnyway spreads',
        'PREFERENCE_POLICY',
      )
        .choices(['Respect', 'Ignore'])
        .default('Respect'),
    )
    .addOption(
      option('--min-values-policy <policy>', 'Strict or BestEffort minValues', 'MIN_VALUES_POLICY')
        .choices(['Strict', 'BestEffort'])
        .default('Strict'),
    )
    .addOption(
      boolOption(
        'ignore-dra-requests',
        'ignore dynamic resource allocation claims',
        'IGNORE_DRA_REQUESTS',
        true,
      ),
    )
    .addOption(
      option(
        '--feature-gates <gates>',
        'comma-separated Name=bool over the defaults',
        'FEATURE_GATES',
      )
        .argParser(gates)
        .default(
          parseFeatureGates(''),
          'NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,NodeOverlay=false,StaticCapacity=false,CapacityBuffer=false',
        ),
    )
    .addOption(
      option(
        '--sim-state-dir <dir>',
        'sim provider: keep the machines in <dir>/sim-cloud.json (survives restarts); empty = memory only',
        'SIM_STATE_DIR',
      ).default(''),
    )
    .addOption(
      option(
        '--sim-create-delay <duration>',
        'sim provider: how long a launch takes to answer once the machine runs (Go duration)',
        'SIM_CREATE_DELAY',
      )
        .argParser(delay)
        .default(0, '0s'),
    )
    .addOption(
      option(
        '--interruption-queue <name-or-url>',
        'aws provider: SQS queue (name or URL) of interruption events; empty = no interruption handling',
        'INTERRUPTION_QUEUE',
      ).default(''),
    )
    .exitOverride()
    .allowExcessArguments(false);
}

/**
 * Parses the command line (`argv` without `node` and the script) over `env`. Never throws:
 * help, version and every invalid value come back as `{kind: 'exit'}` with the text to print
 * (bad input exits 2 with one line, `karpenter-ts-controller: error: ...`, naming the flag, the
 * variable and the rule). The batch idle duration
 * must not exceed the max duration.
 */
export function parseOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  version = '0.1.0',
): ParseResult {
  let output = '';
  const program = buildOptionsProgram(version).configureOutput({
    writeOut: (text) => (output += text),
    writeErr: (text) => (output += text),
    outputError: (text, write) => write(fatalErrorLine(text)),
  });
  // commander reads process.env; swap in the given environment for the parse.
  const saved = process.env;
  process.env = { ...env } as NodeJS.ProcessEnv;
  try {
    program.parse([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      return { kind: 'exit', code: err.exitCode === 0 ? 0 : 2, output };
    }
    throw err;
  } finally {
    process.env = saved;
  }
  const o = program.opts();
  const options: OperatorOptions = {
    provider: o['provider'] as Provider,
    clusterName: o['clusterName'] as string,
    kubeconfig: o['kubeconfig'] as string,
    karpenterService: o['karpenterService'] as string,
    metricsPort: o['metricsPort'] as number,
    healthProbePort: o['healthProbePort'] as number,
    kubeClientQps: o['kubeClientQps'] as number,
    kubeClientBurst: o['kubeClientBurst'] as number,
    enableProfiling: o['enableProfiling'] as boolean,
    disableControllerWarmup: o['disableControllerWarmup'] as boolean,
    disableLeaderElection: o['disableLeaderElection'] as boolean,
    disableClusterStateObservability: o['disableClusterStateObservability'] as boolean,
    leaderElectionName: o['leaderElectionName'] as string,
    leaderElectionNamespace: o['leaderElectionNamespace'] as string,
    memoryLimit: o['memoryLimit'] as number,
    cpuRequests: o['cpuRequests'] as number,
    logLevel: o['logLevel'] as LogLevel,
    logOutputPaths: o['logOutputPaths'] as string[],
    logErrorOutputPaths: o['logErrorOutputPaths'] as string[],
    batchMaxDuration: o['batchMaxDuration'] as number,
    batchIdleDuration: o['batchIdleDuration'] as number,
    preferencePolicy: o['preferencePolicy'] as 'Respect' | 'Ignore',
    minValuesPolicy: o['minValuesPolicy'] as 'Strict' | 'BestEffort',
    ignoreDraRequests: o['ignoreDraRequests'] as boolean,
    featureGates: o['featureGates'] as FeatureGates,
    simStateDir: o['simStateDir'] as string,
    simCreateDelay: o['simCreateDelay'] as number,
    interruptionQueue: (o['interruptionQueue'] as string).trim(),
  };
  const problem = crossCheck(options);
  if (problem !== undefined) return { kind: 'exit', code: 2, output: fatalErrorLine(problem) };
  return { kind: 'run', options };
}

function crossCheck(o: OperatorOptions): string | undefined {
  if (o.batchIdleDuration > o.batchMaxDuration) {
    return `--batch-idle-duration (BATCH_IDLE_DURATION, ${o.batchIdleDuration}s) must not exceed --batch-max-duration (BATCH_MAX_DURATION, ${o.batchMaxDuration}s)`;
  }
  if (o.provider !== 'sim' && o.clusterName === '') {
    return `--cluster-name (CLUSTER_NAME) is required for --provider ${o.provider}`;
  }
  if (o.interruptionQueue !== '' && o.provider !== 'aws') {
    return `--interruption-queue (INTERRUPTION_QUEUE) is for --provider aws, not --provider ${o.provider}`;
  }
  return undefined;
}
