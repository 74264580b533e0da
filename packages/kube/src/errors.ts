/**
 * Turns the API server's error responses (a `meta/v1` Status object with an HTTP code) into the
 * error classes of the KubeClient contract, so callers never see raw HTTP errors.
 */
import {
  AlreadyExistsError,
  ConflictError,
  KubeApiError,
  NotFoundError,
  TooManyRequestsError,
} from '@karpenter-ts/controllers';

/** One field problem of a rejected object (`details.causes[]` of a Status). */
export interface StatusCause {
  /** e.g. `FieldValueInvalid`, `FieldValueRequired`, `FieldValueNotSupported`. */
  readonly reason?: string;
  readonly message?: string;
  /** The field path the API server reports, e.g. `spec.weight`. */
  readonly field?: string;
}

/** The `meta/v1` Status the API server answers errors with. */
export interface ApiStatus {
  readonly kind?: 'Status';
  readonly status?: string;
  readonly message?: string;
  /** e.g. `NotFound`, `AlreadyExists`, `Conflict`, `Invalid`, `TooManyRequests`, `Expired`. */
  readonly reason?: string;
  readonly code?: number;
  readonly details?: {
    readonly name?: string;
    readonly kind?: string;
    readonly causes?: readonly StatusCause[];
    readonly retryAfterSeconds?: number;
  };
}

/**
 * The error for an HTTP error answer: 404 NotFoundError, 409 AlreadyExistsError (reason
 * `AlreadyExists`) or ConflictError, 429 TooManyRequestsError, anything else KubeApiError with
 * the code. The parsed Status (when the body is one) is the error's `cause`; read it with
 * {@link apiStatusOf}. `body` may be JSON text or anything else (a proxy's HTML page).
 */
export function errorFromResponse(code: number, body: string, request: string): KubeApiError {
  const status = parseStatus(body);
  const message = `${request}: ${status?.message ?? (body.trim().slice(0, 200) || `HTTP ${code}`)}`;
  const options = { cause: status ?? body };
  switch (code) {
    case 404:
      return new NotFoundError(message, options);
    case 409:
      return status?.reason === 'AlreadyExists'
        ? new AlreadyExistsError(message, options)
        : new ConflictError(message, options);
    case 429:
      return new TooManyRequestsError(message, options);
    default:
      return new KubeApiError(code, message, options);
  }
}

/** The API server's Status behind an error from this package, if it sent one. */
export function apiStatusOf(err: unknown): ApiStatus | undefined {
  if (!(err instanceof KubeApiError)) return undefined;
  const cause = (err as { cause?: unknown }).cause;
  return typeof cause === 'object' && cause !== null && (cause as ApiStatus).kind === 'Status'
    ? (cause as ApiStatus)
    : undefined;
}

/**
 * True when repeating the same request later may succeed: 429 (API Priority and Fairness
 * throttling, not an eviction refusal) and 500/502/503/504, plus transport failures (connection
 * refused or reset) that carry no HTTP code. 409, 404, 422 and other 4xx are final.
 */
export function isTransient(err: unknown): boolean {
  if (err instanceof KubeApiError) return err.code === 429 || (err.code >= 500 && err.code <= 504);
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return err.name === 'FetchError' || (typeof code === 'string' && /^E[A-Z]+$/.test(code));
}

function parseStatus(body: string): ApiStatus | undefined {
  try {
    const parsed = JSON.parse(body) as unknown;
    return typeof parsed === 'object' && parsed !== null && (parsed as ApiStatus).kind === 'Status'
      ? (parsed as ApiStatus)
      : undefined;
  } catch {
    return undefined;
  }
}
