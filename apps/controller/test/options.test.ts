import { describe, expect, it } from 'vitest';
import {
  FeatureGateDefaults,
  formatGoDuration,
  parseFeatureGates,
  parseGoDuration,
  parseOptions,
  type OperatorOptions,
} from '../src/index.js';

function run(argv: string[], env: Record<string, string> = {}): OperatorOptions {
  const result = parseOptions(argv, env);
  if (result.kind !== 'run')
    throw new Error(`expected to run, got exit ${result.code}: ${result.output}`);
  return result.options;
}

function fail(argv: string[], env: Record<string, string> = {}): string {
  const result = parseOptions(argv, env);
  if (result.kind !== 'exit') throw new Error('expected startup to fail');
  expect(result.code).toBe(2);
  return result.output;
}

describe('operator options', () => {
  it("defaults to upstream's values", () => {
    expect(run([])).toEqual({
      provider: 'sim',
      clusterName: '',
      kubeconfig: '',
      karpenterService: '',
      metricsPort: 8080,
      healthProbePort: 8081,
      kubeClientQps: 200,
      kubeClientBurst: 300,
      enableProfiling: false,
      disableControllerWarmup: true,
      disableLeaderElection: false,
      disableClusterStateObservability: false,
      leaderElectionName: 'karpenter-leader-election',
      leaderElectionNamespace: '',
      memoryLimit: -1,
      cpuRequests: 1000,
      logLevel: 'info',
      logOutputPaths: ['stdout'],
      logErrorOutputPaths: ['stderr'],
      batchMaxDuration: 10,
      batchIdleDuration: 1,
      preferencePolicy: 'Respect',
      minValuesPolicy: 'Strict',
      ignoreDraRequests: true,
      featureGates: FeatureGateDefaults,
      simStateDir: '',
      simCreateDelay: 0,
      interruptionQueue: '',
    });
  });

  it('reads every option from its upstream environment variable', () => {
    const o = run([], {
      METRICS_PORT: '9000',
      HEALTH_PROBE_PORT: '9001',
      KUBE_CLIENT_QPS: '50',
      KUBE_CLIENT_BURST: '60',
      DISABLE_LEADER_ELECTION: 'true',
      LEADER_ELECTION_NAME: 'my-lease',
      LEADER_ELECTION_NAMESPACE: 'karpenter',
      LOG_LEVEL: 'debug',
      LOG_OUTPUT_PATHS: 'stdout,/var/log/k.log',
      BATCH_MAX_DURATION: '1m30s',
      BATCH_IDLE_DURATION: '500ms',
      PREFERENCE_POLICY: 'Ignore',
      MIN_VALUES_POLICY: 'BestEffort',
      FEATURE_GATES: 'NodeRepair=true,ReservedCapacity=false',
      CLUSTER_NAME: 'prod',
      PROVIDER: 'sim',
      MEMORY_LIMIT: '1073741824',
    });
    expect(o).toMatchObject({
      metricsPort: 9000,
      healthProbePort: 9001,
      kubeClientQps: 50,
      kubeClientBurst: 60,
      disableLeaderElection: true,
      leaderElectionName: 'my-lease',
      leaderElectionNamespace: 'karpenter',
      logLevel: 'debug',
      logOutputPaths: ['stdout', '/var/log/k.log'],
      batchMaxDuration: 90,
      batchIdleDuration: 0.5,
      preferencePolicy: 'Ignore',
      minValuesPolicy: 'BestEffort',
      clusterName: 'prod',
      memoryLimit: 1073741824,
    });
    expect(o.featureGates).toEqual({
      ...FeatureGateDefaults,
      NodeRepair: true,
      ReservedCapacity: false,
    });
  });

  it('lets a flag override the environment variable', () => {
    const o = run(
      ['--metrics-port', '7000', '--log-level=error', '--disable-leader-election=false'],
      {
        METRICS_PORT: '9000',
        LOG_LEVEL: 'debug',
        DISABLE_LEADER_ELECTION: 'true',
      },
    );
    expect(o.metricsPort).toBe(7000);
    expect(o.logLevel).toBe('error');
    expect(o.disableLeaderElection).toBe(false);
  });

  it('treats a bare boolean flag as true', () => {
    expect(run(['--disable-leader-election']).disableLeaderElection).toBe(true);
  });

  it('fails startup naming the flag, the variable and the rule for a bad environment value', () => {
    const out = fail([], { METRICS_PORT: 'eighty' });
    expect(out).toContain('--metrics-port');
    expect(out).toContain('METRICS_PORT');
    expect(out).toContain('integer from 0 to 65535');
  });

  it('fails startup for an enum value upstream does not know', () => {
    expect(fail(['--preference-policy', 'Maybe'])).toMatch(/Respect.*Ignore/);
    expect(fail([], { MIN_VALUES_POLICY: 'Loose' })).toContain('MIN_VALUES_POLICY');
    expect(fail(['--log-level', 'trace'])).toContain('--log-level');
    expect(fail(['--provider', 'gcp'])).toContain('--provider');
  });

  it('fails startup for a malformed duration, feature gate or boolean', () => {
    expect(fail([], { BATCH_MAX_DURATION: '10' })).toContain('not a duration');
    expect(fail(['--batch-idle-duration', '0s'])).toContain('greater than 0');
    expect(fail([], { FEATURE_GATES: 'Karpenter=true' })).toContain(
      'unknown feature gate "Karpenter"',
    );
    expect(fail([], { FEATURE_GATES: 'NodeRepair=yes' })).toContain('not a boolean');
    expect(fail([], { DISABLE_LEADER_ELECTION: 'maybe' })).toContain('DISABLE_LEADER_ELECTION');
  });

  it('refuses an idle duration longer than the max duration', () => {
    expect(fail(['--batch-idle-duration', '20s'])).toContain(
      'must not exceed --batch-max-duration',
    );
  });

  it('requires a cluster name for the real clouds', () => {
    expect(fail(['--provider', 'azure'])).toContain('--cluster-name (CLUSTER_NAME) is required');
    expect(run(['--provider', 'azure', '--cluster-name', 'aks-1']).provider).toBe('azure');
  });

  it('takes the interruption queue for --provider aws from the flag or INTERRUPTION_QUEUE', () => {
    const aws = ['--provider', 'aws', '--cluster-name', 'eks-1'];
    expect(run([...aws, '--interruption-queue', 'eks-1-interruptions']).interruptionQueue).toBe(
      'eks-1-interruptions',
    );
    expect(run(aws, { INTERRUPTION_QUEUE: ' q1 ' }).interruptionQueue).toBe('q1');
    expect(run(aws).interruptionQueue).toBe('');
    expect(fail(['--interruption-queue', 'q1'])).toContain(
      '--interruption-queue (INTERRUPTION_QUEUE) is for --provider aws, not --provider sim',
    );
  });

  it('says in --help which providers are wired', () => {
    const result = parseOptions(['--help'], {});
    expect(result).toMatchObject({ kind: 'exit', code: 0 });
    const help = result.kind === 'exit' ? result.output.replace(/\s+/g, ' ') : '';
    expect(help).toContain('--provider sim, azure and aws are wired');
    expect(help).toContain('aws from AWS_REGION, CLUSTER_ENDPOINT');
    expect(help).toContain('env: BATCH_MAX_DURATION');
  });

  it('rejects unknown flags and stray arguments', () => {
    expect(fail(['--no-such-flag'])).toContain("unknown option '--no-such-flag'");
    expect(fail(['extra'])).toContain('too many arguments');
  });
});

describe('Go durations', () => {
  it('parses the forms upstream flags take', () => {
    expect(parseGoDuration('10s')).toBe(10);
    expect(parseGoDuration('1m30s')).toBe(90);
    expect(parseGoDuration('1.5h')).toBe(5400);
    expect(parseGoDuration('250ms')).toBeCloseTo(0.25, 12);
    expect(parseGoDuration('0')).toBe(0);
  });

  it('rejects numbers without units and unknown units', () => {
    expect(() => parseGoDuration('10')).toThrow(/not a duration/);
    expect(() => parseGoDuration('10d')).toThrow(/not a duration/);
    expect(() => parseGoDuration('')).toThrow(/not a duration/);
  });

  it('formats simple durations as Go prints them', () => {
    expect(formatGoDuration(10)).toBe('10s');
    expect(formatGoDuration(0.5)).toBe('500ms');
    expect(formatGoDuration(90)).toBe('1m30s');
  });
});

describe('feature gates', () => {
  it('overrides only the gates named', () => {
    expect(parseFeatureGates(' SpotToSpotConsolidation=true ')).toEqual({
      ...FeatureGateDefaults,
      SpotToSpotConsolidation: true,
    });
  });

  it('rejects an entry without a value', () => {
    expect(() => parseFeatureGates('NodeRepair')).toThrow(/Name=true\|false/);
  });
});
