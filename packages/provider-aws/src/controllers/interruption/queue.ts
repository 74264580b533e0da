/**
 * The interruption queue over SQS, as upstream's SQS provider reads it: the queue URL from
 * `GetQueueUrl` when given a name (cached until the queue is reported missing), long-polled
 * receives of up to 10 messages with a 20-second wait and a 20-second visibility timeout (a
 * message not deleted comes back after it), and one `DeleteMessage` per handled message.
 */
import {
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { awsErrorCode, awsErrorText } from '../../aws/errors.js';

/** Upstream's receive parameters. */
export const InterruptionQueueReceive = {
  /** Messages per receive (SQS's maximum). */
  maxMessages: 10,
  /** Seconds a receive waits for a first message (SQS's maximum long poll). */
  waitTimeSeconds: 20,
  /** Seconds a received message stays invisible to other receivers. */
  visibilityTimeoutSeconds: 20,
} as const;

/** One received message. */
export interface QueueMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
  /** SQS's `SentTimestamp` (ms since the epoch) when it came back. */
  readonly sentMs?: number;
}

/** Options of {@link SqsInterruptionQueue}. */
export interface SqsInterruptionQueueOptions {
  readonly sqs: SQSClient;
  /** A queue name, or a queue URL (`http(s)://…`), as `--interruption-queue` takes it. */
  readonly queue: string;
  /** Long-poll wait, seconds; default 20 (tests waiting on an empty queue use less). */
  readonly waitTimeSeconds?: number;
}

const MissingQueueCodes: ReadonlySet<string> = new Set([
  'QueueDoesNotExist',
  'AWS.SimpleQueueService.NonExistentQueue',
]);

/** Whether `err` says the queue does not exist. */
export function isQueueMissing(err: unknown): boolean {
  return MissingQueueCodes.has(awsErrorCode(err) ?? '');
}

/** The queue. Every method raises the SDK's error (after its retries) with the queue named. */
export class SqsInterruptionQueue {
  readonly #o: SqsInterruptionQueueOptions;
  #url: string | undefined;

  constructor(options: SqsInterruptionQueueOptions) {
    this.#o = options;
    if (/^https?:\/\//.test(options.queue)) this.#url = options.queue;
  }

  /** The name or URL it was given. */
  get name(): string {
    return this.#o.queue;
  }

  /** The queue URL (GetQueueUrl for a name, once). */
  async url(abortSignal?: AbortSignal): Promise<string> {
    if (this.#url !== undefined) return this.#url;
    try {
      const out = await this.#o.sqs.send(
        new GetQueueUrlCommand({ QueueName: this.#o.queue }),
        abortSignal ? { abortSignal } : {},
      );
      if (!out.QueueUrl) throw new Error('GetQueueUrl answered without a QueueUrl');
      this.#url = out.QueueUrl;
      return this.#url;
    } catch (err) {
      throw this.#named('resolving the queue URL', err);
    }
  }

  /** One long-polled receive; resolves with no message when the wait ends empty. */
  async receive(abortSignal?: AbortSignal): Promise<QueueMessage[]> {
    const url = await this.url(abortSignal);
    try {
      const out = await this.#o.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: InterruptionQueueReceive.maxMessages,
          WaitTimeSeconds: this.#o.waitTimeSeconds ?? InterruptionQueueReceive.waitTimeSeconds,
          VisibilityTimeout: InterruptionQueueReceive.visibilityTimeoutSeconds,
          MessageSystemAttributeNames: ['SentTimestamp'],
          MessageAttributeNames: ['All'],
        }),
        abortSignal ? { abortSignal } : {},
      );
      return (out.Messages ?? []).flatMap((m): QueueMessage[] => {
        if (!m.ReceiptHandle) return [];
        const sent = Number(m.Attributes?.SentTimestamp);
        return [
          {
            messageId: m.MessageId ?? '',
            receiptHandle: m.ReceiptHandle,
            body: m.Body ?? '',
            ...(sent > 0 ? { sentMs: sent } : {}),
          },
        ];
      });
    } catch (err) {
      throw this.#named('receiving messages', err);
    }
  }

  /** Deletes a received message by its receipt handle. */
  async delete(message: QueueMessage): Promise<void> {
    const url = await this.url();
    try {
      await this.#o.sqs.send(
        new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.receiptHandle }),
      );
    } catch (err) {
      throw this.#named(`deleting message ${message.messageId}`, err);
    }
  }

  #named(what: string, err: unknown): Error {
    // A queue that was deleted and created again has a new URL: look it up again next time.
    if (isQueueMissing(err) && !/^https?:\/\//.test(this.#o.queue)) this.#url = undefined;
    if ((err as Error)?.name === 'AbortError') return err as Error;
    return new Error(`interruption queue ${this.#o.queue}: ${what}: ${awsErrorText(err)}`, {
      cause: err,
    });
  }
}
