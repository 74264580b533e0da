import { RestError } from '@azure/core-rest-pipeline';
import { describe, expect, it } from 'vitest';
import { armErrorText } from '../../src/index.js';

describe('armErrorText', () => {
  it("reads a RestError as ARM's code and message", () => {
    const err = new RestError('The client has no authorization to read the subnet.', {
      code: 'AuthorizationFailed',
      statusCode: 403,
    });
    expect(armErrorText(err)).toBe(
      'AuthorizationFailed: The client has no authorization to read the subnet.',
    );
  });

  it('names the HTTP status of a RestError that carries no ARM code', () => {
    expect(armErrorText(new RestError('Bad Gateway', { statusCode: 502 }))).toBe(
      'HTTP502: Bad Gateway',
    );
  });

  it("reads a long-running operation's late failure as the ARM code and message inside it", () => {
    const err = new Error(
      'The long-running operation has failed. AllocationFailed. Allocation failed in zone 2.',
    );
    expect(armErrorText(err)).toBe('AllocationFailed: Allocation failed in zone 2.');
  });

  it('gives the message of an error that carries no ARM error, and a thrown non-Error as text', () => {
    expect(armErrorText(new Error('connect ECONNREFUSED 127.0.0.1:443'))).toBe(
      'connect ECONNREFUSED 127.0.0.1:443',
    );
    expect(armErrorText('socket hang up')).toBe('socket hang up');
  });
});
