import { describe, expect, it } from 'vitest';
import {
  CloudProviderError,
  CreateError,
  InsufficientCapacityError,
  NodeClaimNotFoundError,
  NodeClassNotReadyError,
  isCreateError,
  isInsufficientCapacityError,
  isNodeClaimNotFoundError,
  isNodeClassNotReadyError,
} from '../src/index.js';

describe('cloud provider errors', () => {
  const cause = new Error('sdk said no');

  it('NodeClaimNotFoundError names the missing id and carries the cause', () => {
    const err = new NodeClaimNotFoundError('sim:///z/a', { cause });
    expect(err).toBeInstanceOf(CloudProviderError);
    expect(err.name).toBe('NodeClaimNotFoundError');
    expect(err.id).toBe('sim:///z/a');
    expect(err.message).toContain('sim:///z/a');
    expect(err.cause).toBe(cause);
    expect(isNodeClaimNotFoundError(err)).toBe(true);
    expect(isInsufficientCapacityError(err)).toBe(false);
  });

  it('InsufficientCapacityError lists the offerings that had no capacity', () => {
    const key = { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot' };
    const err = new InsufficientCapacityError('no capacity', { cause, offerings: [key] });
    expect(err.offerings).toEqual([key]);
    expect(err.cause).toBe(cause);
    expect(isInsufficientCapacityError(err)).toBe(true);
  });

  it('NodeClassNotReadyError names the NodeClass', () => {
    const err = new NodeClassNotReadyError('default', { cause });
    expect(err.nodeClassName).toBe('default');
    expect(err.message).toBe('node class default is not ready');
    expect(err.cause).toBe(cause);
    expect(isNodeClassNotReadyError(err)).toBe(true);
  });

  it('CreateError keeps a condition reason apart from the message', () => {
    const err = new CreateError('LaunchTemplateNotFound', 'launch template vanished', { cause });
    expect(err.reason).toBe('LaunchTemplateNotFound');
    expect(err.message).toBe('launch template vanished');
    expect(err.cause).toBe(cause);
    expect(isCreateError(err)).toBe(true);
    expect(isCreateError(new Error('x'))).toBe(false);
  });

  it('leaves cause undefined when none is given', () => {
    expect(new CreateError('R', 'm').cause).toBeUndefined();
    expect('cause' in new CreateError('R', 'm')).toBe(false);
  });
});
