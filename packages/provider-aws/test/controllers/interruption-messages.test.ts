// The EventBridge messages of the interruption queue, parsed as upstream does: the kind from
// (version, source, detail-type), the instance IDs, and what counts as malformed.
import { describe, expect, it } from 'vitest';
import { MalformedMessageError, parseInterruptionMessage } from '../../src/index.js';

const envelope = (source: string, detailType: string, detail: unknown) =>
  JSON.stringify({
    version: '0',
    id: '7bf73129-1428-4cd3-a780-95db273d1602',
    'detail-type': detailType,
    source,
    account: '123456789012',
    time: '2026-12-01T10:00:00Z',
    region: 'us-west-2',
    resources: [],
    detail,
  });

const at = Date.parse('2026-12-01T10:00:00Z');

describe('parseInterruptionMessage', () => {
  it('reads a spot interruption warning', () => {
    expect(
      parseInterruptionMessage(
        envelope('aws.ec2', 'EC2 Spot Instance Interruption Warning', {
          'instance-id': 'i-0abc',
          'instance-action': 'terminate',
        }),
      ),
    ).toEqual({
      kind: 'spot_interrupted',
      instanceIds: ['i-0abc'],
      timeMs: at,
      id: '7bf73129-1428-4cd3-a780-95db273d1602',
    });
  });

  it('reads a capacity reservation interruption warning (its detail names the instance only)', () => {
    expect(
      parseInterruptionMessage(
        envelope('aws.ec2', 'EC2 Capacity Reservation Instance Interruption Warning', {
          'instance-id': 'i-0cr',
          'instance-action': 'terminate',
          'instance-lifecycle': 'capacity-block',
        }),
      ),
    ).toMatchObject({ kind: 'capacity_reservation_interrupted', instanceIds: ['i-0cr'] });
    expect(() =>
      parseInterruptionMessage(
        envelope('aws.ec2', 'EC2 Capacity Reservation Instance Interruption Warning', {}),
      ),
    ).toThrow(/instance-id/);
  });

  it('reads a rebalance recommendation', () => {
    expect(
      parseInterruptionMessage(
        envelope('aws.ec2', 'EC2 Instance Rebalance Recommendation', { 'instance-id': 'i-1' }),
      ),
    ).toMatchObject({ kind: 'rebalance_recommendation', instanceIds: ['i-1'] });
  });

  it('reads an AWS Health scheduled change for EC2 with every affected instance', () => {
    const health = (service: string, category: string) =>
      envelope('aws.health', 'AWS Health Event', {
        service,
        eventTypeCategory: category,
        eventTypeCode: 'AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED',
        affectedEntities: [{ entityValue: 'i-1' }, { entityValue: 'i-2' }],
      });
    expect(parseInterruptionMessage(health('EC2', 'scheduledChange'))).toMatchObject({
      kind: 'scheduled_change',
      instanceIds: ['i-1', 'i-2'],
    });
    // Other services and categories are not Karpenter's business.
    expect(parseInterruptionMessage(health('RDS', 'scheduledChange')).kind).toBe('no_op');
    expect(parseInterruptionMessage(health('EC2', 'issue')).kind).toBe('no_op');
  });

  it('reads instance state changes: stopping and stopped stop, shutting-down and terminated terminate, others are no-ops', () => {
    const change = (state: string) =>
      parseInterruptionMessage(
        envelope('aws.ec2', 'EC2 Instance State-change Notification', {
          'instance-id': 'i-9',
          state,
        }),
      );
    expect(change('stopping')).toMatchObject({
      kind: 'instance_stopped',
      instanceIds: ['i-9'],
      state: 'stopping',
    });
    expect(change('stopped').kind).toBe('instance_stopped');
    expect(change('shutting-down').kind).toBe('instance_terminated');
    expect(change('terminated').kind).toBe('instance_terminated');
    expect(change('pending')).toMatchObject({ kind: 'no_op', instanceIds: [] });
    expect(change('running').kind).toBe('no_op');
  });

  it('treats other sources, detail types, versions and an empty body as no-ops', () => {
    expect(parseInterruptionMessage(envelope('aws.s3', 'Object Created', {})).kind).toBe('no_op');
    expect(
      parseInterruptionMessage(
        JSON.stringify({
          version: '1',
          source: 'aws.ec2',
          'detail-type': 'EC2 Spot Instance Interruption Warning',
          detail: { 'instance-id': 'i-1' },
        }),
      ).kind,
    ).toBe('no_op');
    expect(parseInterruptionMessage('')).toEqual({ kind: 'no_op', instanceIds: [] });
  });

  it('refuses a body that is not an envelope, or a known kind without its detail fields', () => {
    const cases: [string, string][] = [
      ['{not json', 'the body is not JSON'],
      ['[1,2]', 'the body is not a JSON object'],
      [JSON.stringify({ version: 0 }), 'version must be a string'],
      [JSON.stringify({ version: '0', time: 'yesterday' }), 'time "yesterday" is not an RFC 3339'],
      [
        envelope('aws.ec2', 'EC2 Spot Instance Interruption Warning', {}),
        'spot interruption warning: detail.instance-id must be a non-empty string',
      ],
      [
        envelope('aws.ec2', 'EC2 Spot Instance Interruption Warning', 'i-1'),
        'spot interruption warning: detail must be an object',
      ],
      [
        envelope('aws.ec2', 'EC2 Instance State-change Notification', { 'instance-id': 'i-1' }),
        'detail.state must be a string',
      ],
      [
        envelope('aws.health', 'AWS Health Event', {
          service: 'EC2',
          eventTypeCategory: 'scheduledChange',
          affectedEntities: [{ entityValue: 7 }],
        }),
        'detail.affectedEntities[0].entityValue must be a non-empty string',
      ],
    ];
    for (const [body, message] of cases) {
      expect(() => parseInterruptionMessage(body), body).toThrow(MalformedMessageError);
      expect(() => parseInterruptionMessage(body), body).toThrow(message);
    }
  });
});
