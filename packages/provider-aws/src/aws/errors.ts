/**
 * Reading AWS SDK errors: their code, and the classes the provider branches on (upstream
 * pkg/errors: insufficient capacity, not found, throttling, unauthorized).
 */

/** Fleet error codes upstream treats as temporary insufficient capacity (reference 4.3). */
export const InsufficientCapacityErrorCodes: ReadonlySet<string> = new Set([
  'InsufficientInstanceCapacity',
  'MaxSpotInstanceCountExceeded',
  'VcpuLimitExceeded',
  'UnfulfillableCapacity',
  'Unsupported',
  'InsufficientFreeAddressesInSubnet',
  'MaxFleetCountExceeded',
  'ReservationCapacityExceeded',
]);

/** The error code of an SDK error (`name`, e.g. `InvalidInstanceID.NotFound`), or undefined. */
export function awsErrorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { name?: unknown; Code?: unknown; $metadata?: unknown };
  if (e.$metadata === undefined) return undefined;
  if (typeof e.Code === 'string') return e.Code;
  return typeof e.name === 'string' ? e.name : undefined;
}

/** True for `*.NotFound`, `*NotFoundException`, `NoSuchEntity` and `ParameterNotFound` errors. */
export function isAwsNotFound(err: unknown): boolean {
  const code = awsErrorCode(err) ?? '';
  return (
    code.endsWith('.NotFound') ||
    code.endsWith('NotFoundException') ||
    code === 'NoSuchEntity' ||
    code === 'ParameterNotFound'
  );
}

/** True for `UnauthorizedOperation`, `AccessDenied*` and `AuthFailure`. */
export function isAwsUnauthorized(err: unknown): boolean {
  const code = awsErrorCode(err) ?? '';
  return (
    code === 'UnauthorizedOperation' || code.startsWith('AccessDenied') || code === 'AuthFailure'
  );
}

/** `<code>: <message>` of an SDK error, else the error's message. */
export function awsErrorText(err: unknown): string {
  const code = awsErrorCode(err);
  const message = (err as Error)?.message ?? String(err);
  return code ? `${code}: ${message}` : message;
}
