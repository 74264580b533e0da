/**
 * A local AWS for tests: moto's server (EC2, SSM, IAM, SQS, ...) behind a thin layer that fills the
 * gaps the AWS provider meets (README). Clients are the real `@aws-sdk/*` ones, pointed at `url`.
 */
import type { Server } from 'node:http';
import { EC2Client } from '@aws-sdk/client-ec2';
import { IAMClient } from '@aws-sdk/client-iam';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import { Faults } from './faults.js';
import type { FleetLaunch } from './create-fleet.js';
import { startMotoServer, type MotoServer } from './moto-server.js';
import { startProxy, type RecordedRequest } from './proxy.js';
import { putPublicParameter, seedAccount, type Seed } from './seed.js';
import { SpotPrices } from './spot-prices.js';
import { CapacityReservations } from './capacity-reservations.js';

export { ensureMoto, freeLoopbackPort, startMotoServer, type MotoServer } from './moto-server.js';
export { CapacityErrorMessages, Faults, type CapacityMatch } from './faults.js';
export type { FleetLaunch } from './create-fleet.js';
export { SpotPrices, type SpotPrice } from './spot-prices.js';
export {
  CapacityReservations,
  EmulatorAccountId,
  type CapacityReservation,
  type ReservationRefusal,
} from './capacity-reservations.js';
export { isEmulatedPublicParameter, PublicParameterPrefix, type RecordedRequest } from './proxy.js';
export type { Seed } from './seed.js';

/** Credentials the emulator accepts (any are; these are only for signing). */
export const EmulatorCredentials = {
  accessKeyId: 'AKIAKARPENTERTSTEST',
  secretAccessKey: 'karpenter-ts-emulator-secret',
} as const;

/** Options of {@link startAwsEmulator}. */
export interface AwsEmulatorOptions {
  /** Default `us-west-2`. */
  readonly region?: string;
  /** Default `karpenter-ts`: the discovery tag value and role name suffix of the seed. */
  readonly clusterName?: string;
  /** Kubernetes minor of the seeded SSM alias parameters, default `1.36`. */
  readonly kubernetesVersion?: string;
  /** Called for each instance CreateFleet launches, before the call answers (e.g. register a Node). */
  readonly onInstanceLaunched?: (launch: FleetLaunch) => Promise<void> | void;
  /** Default: the system clock (spot price timestamps). */
  readonly now?: () => Date;
}

/** A running emulator. */
export interface AwsEmulator {
  /** The endpoint to give every SDK client (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** moto itself, behind the layer (for inspection only; the provider must use `url`). */
  readonly motoUrl: string;
  readonly region: string;
  readonly seed: Seed;
  readonly faults: Faults;
  readonly spotPrices: SpotPrices;
  /** Capacity reservations DescribeCapacityReservations answers from and CreateFleet launches into (none at start). */
  readonly capacityReservations: CapacityReservations;
  /** Every instance CreateFleet launched, in order. */
  readonly launches: readonly FleetLaunch[];
  /** Every request the layer saw (service and action), in order. */
  readonly requests: readonly RecordedRequest[];
  /** SDK clients pointed at `url`, for tests to look at and change the account. */
  readonly clients: {
    readonly ec2: EC2Client;
    readonly ssm: SSMClient;
    readonly iam: IAMClient;
    readonly sqs: SQSClient;
  };
  /** The config every SDK client takes to talk to the emulator. */
  clientConfig(): {
    endpoint: string;
    region: string;
    credentials: typeof EmulatorCredentials;
    maxAttempts: number;
  };
  /** Puts a `/aws/service/eks/...` or `/aws/service/bottlerocket/...` parameter. */
  putPublicParameter(name: string, value: string): Promise<void>;
  /** Stops the layer and moto. */
  stop(): Promise<void>;
}

/**
 * Installs moto if needed (install-moto.sh, cached under ~/.cache/karpenter-ts), starts it and
 * the layer on free loopback ports, and seeds the account (see {@link Seed}). About 2 s when moto
 * is cached. Raises Error when moto cannot be installed or started.
 */
export async function startAwsEmulator(options: AwsEmulatorOptions = {}): Promise<AwsEmulator> {
  const region = options.region ?? 'us-west-2';
  const clusterName = options.clusterName ?? 'karpenter-ts';
  const moto: MotoServer = await startMotoServer();
  const direct = (endpoint: string) => ({
    endpoint,
    region,
    credentials: EmulatorCredentials,
    maxAttempts: 1,
  });
  const motoEc2 = new EC2Client(direct(moto.url));
  const motoSsm = new SSMClient(direct(moto.url));
  const faults = new Faults();
  const spotPrices = new SpotPrices();
  const capacityReservations = new CapacityReservations();
  const launches: FleetLaunch[] = [];
  const requests: RecordedRequest[] = [];
  let server: Server | undefined;
  try {
    const seed = await seedAccount(
      {
        ec2: motoEc2,
        ssm: motoSsm,
        iam: new IAMClient(direct(moto.url)),
        sqs: new SQSClient(direct(moto.url)),
      },
      {
        region,
        clusterName,
        ...(options.kubernetesVersion ? { kubernetesVersion: options.kubernetesVersion } : {}),
      },
    );
    const proxy = await startProxy({
      moto: motoEc2,
      motoUrl: moto.url,
      faults,
      spotPrices,
      capacityReservations,
      requests,
      now: options.now ?? (() => new Date()),
      onLaunch: async (l) => {
        launches.push(l);
        await options.onInstanceLaunched?.(l);
      },
    });
    server = proxy.server;
    const config = () => direct(proxy.url);
    const clients = {
      ec2: new EC2Client(config()),
      ssm: new SSMClient(config()),
      iam: new IAMClient(config()),
      sqs: new SQSClient(config()),
    };
    return {
      url: proxy.url,
      motoUrl: moto.url,
      region,
      seed,
      faults,
      spotPrices,
      capacityReservations,
      launches,
      requests,
      clients,
      clientConfig: config,
      putPublicParameter: (name, value) => putPublicParameter(motoSsm, name, value),
      async stop() {
        await new Promise<void>((r) => {
          server?.close(() => r());
          server?.closeAllConnections();
        });
        await moto.stop();
      },
    };
  } catch (err) {
    server?.close();
    await moto.stop();
    throw err;
  }
}
