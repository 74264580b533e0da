import {
  AlreadyExistsError,
  ConflictError,
  KubeApiError,
  NotFoundError,
  TooManyRequestsError,
} from '@karpenter-ts/controllers';
import { describe, expect, it } from 'vitest';
import { apiStatusOf, errorFromResponse, isTransient } from '../src/index.js';

function status(code: number, reason: string, message: string): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason,
    message,
  });
}

describe('API server errors', () => {
  it('maps 404 to NotFoundError with the server message and the request', () => {
    const err = errorFromResponse(
      404,
      status(404, 'NotFound', 'nodepools.karpenter.sh "x" not found'),
      'GET /apis/karpenter.sh/v1/nodepools/x',
    );
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toBe(
      'GET /apis/karpenter.sh/v1/nodepools/x: nodepools.karpenter.sh "x" not found',
    );
  });

  it('tells AlreadyExists from a resourceVersion conflict, both 409', () => {
    expect(errorFromResponse(409, status(409, 'AlreadyExists', 'exists'), 'POST')).toBeInstanceOf(
      AlreadyExistsError,
    );
    const conflict = errorFromResponse(
      409,
      status(409, 'Conflict', 'the object has been modified'),
      'PUT',
    );
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).not.toBeInstanceOf(AlreadyExistsError);
  });

  it('maps 429 to TooManyRequestsError and keeps other codes with the parsed Status as cause', () => {
    expect(errorFromResponse(429, status(429, 'TooManyRequests', 'budget'), 'POST')).toBeInstanceOf(
      TooManyRequestsError,
    );
    const invalid = errorFromResponse(
      422,
      status(422, 'Invalid', 'NodePool "x" is invalid'),
      'POST',
    );
    expect(invalid).toBeInstanceOf(KubeApiError);
    expect(invalid.code).toBe(422);
    expect(apiStatusOf(invalid)?.reason).toBe('Invalid');
  });

  it('copes with a body that is not a Status (a proxy page)', () => {
    const err = errorFromResponse(502, '<html>Bad Gateway</html>', 'GET /api/v1/pods');
    expect(err.code).toBe(502);
    expect(err.message).toBe('GET /api/v1/pods: <html>Bad Gateway</html>');
    expect(apiStatusOf(err)).toBeUndefined();
  });

  it('retries throttling, server errors and dropped connections, never conflicts or validation errors', () => {
    expect(isTransient(new KubeApiError(429, 'throttled'))).toBe(true);
    expect(isTransient(new KubeApiError(503, 'unavailable'))).toBe(true);
    expect(
      isTransient(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    ).toBe(true);
    expect(isTransient(new ConflictError('modified'))).toBe(false);
    expect(isTransient(new NotFoundError('gone'))).toBe(false);
    expect(isTransient(new KubeApiError(422, 'invalid'))).toBe(false);
    expect(isTransient(new TypeError('x is not a function'))).toBe(false);
  });
});
