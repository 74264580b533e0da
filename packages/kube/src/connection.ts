/**
 * The one place that talks HTTP to the API server. It uses @kubernetes/client-node's transport
 * (kubeconfig loading, TLS client certificates, bearer tokens, exec plugins, the `Watch`
 * stream) and adds what the controllers need on top: JSON in and out, typed errors, and retries
 * with exponential backoff for answers that may succeed later (429 throttling, 5xx, dropped
 * connections).
 */
import {
  HttpMethod,
  KubeConfig,
  RequestContext,
  Watch,
  createConfiguration,
  ServerConfiguration,
  type Configuration,
} from '@kubernetes/client-node';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { TokenBucket } from 'limiter';
import pRetry from 'p-retry';
import { errorFromResponse, isTransient } from './errors.js';

/** Backoff of retried requests: delays grow from `minDelayMs` by `factor` up to `maxDelayMs`. */
export interface RetryPolicy {
  /** Retries after the first attempt; 0 disables retrying. Default 5. */
  readonly retries: number;
  /** First delay, milliseconds. Default 200. */
  readonly minDelayMs: number;
  /** Largest delay, milliseconds. Default 5000. */
  readonly maxDelayMs: number;
}

/** The default {@link RetryPolicy}: 5 retries, 200 ms doubling to at most 5 s (with jitter). */
export const DefaultRetryPolicy: RetryPolicy = { retries: 5, minDelayMs: 200, maxDelayMs: 5000 };

/** Options of {@link connect}. */
export interface ConnectOptions {
  /**
   * Path of a kubeconfig file, or several merged as kubectl merges the files of `$KUBECONFIG`
   * (the first current context wins; e.g. a `KUBECONFIG` value split on the path delimiter).
   * Default: `$KUBECONFIG`, then `~/.kube/config`, then the in-cluster service account (what
   * kubectl and client-go do).
   */
  readonly kubeconfig?: string | readonly string[];
  /**
   * How the user named `kubeconfig`, shown in brackets after its path in errors (e.g.
   * `--kubeconfig`). Default none; a path taken from `$KUBECONFIG` is labelled `KUBECONFIG`.
   */
  readonly kubeconfigSource?: string;
  /** Context to use instead of the file's current context. */
  readonly context?: string;
  /** Retry policy of transient failures. */
  readonly retry?: Partial<RetryPolicy>;
  /** Sent as `User-Agent`; shows in audit logs. Default `karpenter-ts`. */
  readonly userAgent?: string;
  /** Client-side rate limit of requests; default none. */
  readonly rateLimit?: ClientRateLimit;
}

/**
 * Client-side rate limit, as client-go's token bucket (upstream's `--kube-client-qps` and
 * `--kube-client-burst`): up to `burst` requests go at once, then `qps` requests per second. The
 * bucket starts full. Every attempt counts (retries too) and so does opening a watch; requests
 * wait their turn in arrival order.
 */
export interface ClientRateLimit {
  /** Requests per second (> 0). */
  readonly qps: number;
  /** Bucket size, requests (integer >= 1). */
  readonly burst: number;
}

/** Options of one {@link KubeConnection.request}. */
export interface RequestOptions {
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Sent as JSON (any value but `undefined`). */
  readonly body?: unknown;
  /** Sent as is instead of `body` (e.g. YAML); give its `contentType`. */
  readonly rawBody?: string;
  /** Content type of the body. Default `application/json`. */
  readonly contentType?: string;
  /**
   * Whether transient failures are retried. Default true; pass false for requests whose repeat
   * could do something twice (a create with `generateName`) or whose 429 is an answer (eviction).
   */
  readonly retry?: boolean;
}

/** A watch stream as {@link KubeConnection.watch} delivers it. */
export interface WatchStream {
  /** Closes the stream; `onDone` is then called with `null`. */
  abort(): void;
}

/**
 * Connects to an API server (no request is made yet). Without `options.kubeconfig` the
 * kubeconfig is found as kubectl finds it: the files in `$KUBECONFIG` (merged), then
 * `~/.kube/config`, then the in-cluster service account (`KUBERNETES_SERVICE_HOST` and
 * `KUBERNETES_SERVICE_PORT` set and the token mounted at
 * `/var/run/secrets/kubernetes.io/serviceaccount/token`).
 *
 * Unlike @kubernetes/client-node's `loadFromDefault`, which falls back to
 * `http://localhost:8080` when it finds none of these, this raises an error, as client-go's
 * `clientcmd` and controller-runtime's `GetConfig` do (the localhost fallback only surfaces
 * later as failing requests).
 * @throws Error `no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a cluster` when
 * none of the sources exists; Error naming the file (and its source, e.g. `(KUBECONFIG)`) when a
 * kubeconfig cannot be read (`kubeconfig <path> cannot be read: no such file`), is not valid
 * YAML, or has no clusters (an empty file too); Error when the current context names no cluster.
 */
export function connect(options: ConnectOptions = {}): KubeConnection {
  const config = new KubeConfig();
  if (options.kubeconfig !== undefined) {
    const files =
      typeof options.kubeconfig === 'string' ? [options.kubeconfig] : options.kubeconfig;
    loadFiles(config, files, options.kubeconfigSource);
  } else loadDefault(config);
  if (options.context !== undefined) config.setCurrentContext(options.context);
  return new KubeConnection(config, options);
}

/** Where the in-cluster service account token is mounted. */
const ServiceAccountToken = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** The default sources of {@link connect}, in kubectl's order; throws when none exists. */
function loadDefault(config: KubeConfig): void {
  const list = (process.env['KUBECONFIG'] ?? '').split(delimiter).filter((f) => f !== '');
  if (list.length > 0) {
    loadFiles(config, list, 'KUBECONFIG');
    return;
  }
  const home = join(homedir(), '.kube', 'config');
  if (existsSync(home)) {
    loadFiles(config, [home]);
    return;
  }
  if (
    (process.env['KUBERNETES_SERVICE_HOST'] ?? '') !== '' &&
    (process.env['KUBERNETES_SERVICE_PORT'] ?? '') !== '' &&
    existsSync(ServiceAccountToken)
  ) {
    config.loadFromCluster();
    return;
  }
  throw new Error('no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a cluster');
}

/**
 * Loads kubeconfig `files` into `config`, merging them in order as kubectl merges the files of
 * `$KUBECONFIG` (the first file's current context wins). The library's own loading fails with a
 * raw file-system error or, for an empty file, a TypeError; these errors name the file instead.
 */
function loadFiles(config: KubeConfig, files: readonly string[], source?: string): void {
  const name = `kubeconfig ${files.join(delimiter)}${source !== undefined ? ` (${source})` : ''}`;
  files.forEach((file, i) => {
    const into = i === 0 ? config : new KubeConfig();
    const fileName = `kubeconfig ${file}${source !== undefined ? ` (${source})` : ''}`;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`${fileName} cannot be read: ${readFailure(err)}`);
    }
    try {
      into.loadFromString(text);
    } catch (err) {
      const first = (err instanceof Error ? err.message : String(err)).split('\n', 1)[0] ?? '';
      if ((err as Error).name === 'YAMLException') {
        throw new Error(`${fileName} is not valid YAML: ${first}`);
      }
      // An empty (or null) YAML document leaves the library reading fields of `undefined`: such
      // a file has no clusters, reported below once all files are merged.
      if (!(err instanceof TypeError)) throw new Error(`${fileName} is not valid: ${first}`);
    }
    into.makePathsAbsolute(dirname(file));
    // kubectl: the first file that sets a current context wins (the library's merge would take
    // the last one's).
    if (into !== config) config.mergeConfig(into, Boolean(config.getCurrentContext()));
  });
  if (config.getClusters().length === 0) throw new Error(`${name} has no clusters`);
}

/** Why a file cannot be read, in words (the error's message when it is no common case). */
function readFailure(err: unknown): string {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

/** See the module comment. Create it with {@link connect}. */
export class KubeConnection {
  readonly #config: KubeConfig;
  readonly #api: Configuration;
  readonly #watch: Watch;
  readonly #retry: RetryPolicy;
  readonly #userAgent: string;
  readonly #bucket: TokenBucket | undefined;
  /** The API server URL, e.g. `https://127.0.0.1:6443`. */
  readonly server: string;

  /** @internal Use {@link connect}. */
  constructor(config: KubeConfig, options: ConnectOptions = {}) {
    const cluster = config.getCurrentCluster();
    if (cluster === null) throw new Error('kubeconfig: the current context names no cluster');
    this.#config = config;
    this.server = cluster.server.replace(/\/+$/, '');
    this.#api = createConfiguration({
      baseServer: new ServerConfiguration(this.server, {}),
      authMethods: { default: config },
    });
    this.#watch = new Watch(config);
    this.#retry = { ...DefaultRetryPolicy, ...options.retry };
    this.#userAgent = options.userAgent ?? 'karpenter-ts';
    this.#bucket = options.rateLimit && rateLimitBucket(options.rateLimit);
  }

  /** The retry policy of this connection. */
  get retryPolicy(): RetryPolicy {
    return this.#retry;
  }

  /**
   * Sends one request and returns the parsed JSON answer (`undefined` for an empty body).
   * @throws the KubeApiError family (NotFoundError, ConflictError, AlreadyExistsError,
   * TooManyRequestsError, KubeApiError with the HTTP code) once retries are used up.
   */
  async request<T>(
    method: HttpMethod | keyof typeof HttpMethod,
    path: string,
    options: RequestOptions = {},
  ): Promise<T> {
    const attempt = () => this.#send<T>(method as HttpMethod, path, options);
    if (options.retry === false || this.#retry.retries === 0) return attempt();
    return pRetry(attempt, {
      retries: this.#retry.retries,
      minTimeout: this.#retry.minDelayMs,
      maxTimeout: this.#retry.maxDelayMs,
      randomize: true,
      shouldRetry: ({ error }) => isTransient(error),
    });
  }

  async #send<T>(method: HttpMethod, path: string, options: RequestOptions): Promise<T> {
    await this.#bucket?.removeTokens(1);
    const context = new RequestContext(`${this.server}${path}`, method);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) context.setQueryParam(key, String(value));
    }
    context.setHeaderParam('Accept', 'application/json');
    context.setHeaderParam('User-Agent', this.#userAgent);
    if (options.rawBody !== undefined || options.body !== undefined) {
      context.setHeaderParam('Content-Type', options.contentType ?? 'application/json');
      context.setBody(options.rawBody ?? JSON.stringify(options.body));
    }
    await this.#config.applySecurityAuthentication(context);
    const response = await this.#api.httpApi.send(context).toPromise();
    const text = await response.body.text();
    if (response.httpStatusCode < 200 || response.httpStatusCode > 299) {
      throw errorFromResponse(response.httpStatusCode, text, `${method} ${path}`);
    }
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /**
   * Opens a watch (`?watch=true`) on a collection path. `onEvent` gets each event's type
   * (`ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`, `ERROR`) and object; `onDone` is called once
   * when the stream ends: `null` when it closed normally (the server's timeout, or
   * {@link WatchStream.abort}), else the error (a KubeApiError for an HTTP error answer).
   */
  async watch(
    path: string,
    query: Readonly<Record<string, string | number | boolean | undefined>>,
    onEvent: (type: string, object: unknown) => void,
    onDone: (err: unknown) => void,
  ): Promise<WatchStream> {
    await this.#bucket?.removeTokens(1);
    const controller = await this.#watch.watch(path, { ...query }, onEvent, (err: unknown) => {
      if (
        err !== null &&
        err !== undefined &&
        typeof (err as { statusCode?: unknown }).statusCode === 'number'
      ) {
        const code = (err as { statusCode: number }).statusCode;
        onDone(errorFromResponse(code, (err as Error).message, `WATCH ${path}`));
      } else if (err !== null && err !== undefined && (err as Error).name === 'AbortError') {
        onDone(null);
      } else onDone(err ?? null);
    });
    return { abort: () => controller.abort() };
  }
}

/** @throws RangeError when qps is not a positive number or burst not an integer >= 1. */
function rateLimitBucket({ qps, burst }: ClientRateLimit): TokenBucket {
  if (!(Number.isFinite(qps) && qps > 0))
    throw new RangeError(`rateLimit.qps must be a positive number, got ${qps}`);
  if (!(Number.isInteger(burst) && burst >= 1))
    throw new RangeError(`rateLimit.burst must be an integer >= 1, got ${burst}`);
  const bucket = new TokenBucket({ bucketSize: burst, tokensPerInterval: qps, interval: 1000 });
  bucket.content = burst; // client-go's bucket starts full: the first `burst` requests go at once
  return bucket;
}
