import { ChangeMessageVisibilityBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { redeliveryDelaySeconds, type RedeliveryRecord, type RedeliveryScheduler } from '../../core/ports/redelivery.ts';

/** SQS takes at most 10 entries per ChangeMessageVisibilityBatch. */
const BATCH_LIMIT = 10;

export function createSqsRedeliveryScheduler(options: { client: SQSClient; queueUrl: string; logger: Logger }): RedeliveryScheduler {
  return {
    async scheduleRetry(records) {
      const entries = records
        .filter((record): record is RedeliveryRecord & { receiptHandle: string } => typeof record.receiptHandle === 'string')
        .map((record, index) => ({
          Id: String(index),
          ReceiptHandle: record.receiptHandle,
          VisibilityTimeout: redeliveryDelaySeconds(Number(record.attributes?.ApproximateReceiveCount ?? 1)),
        }));
      for (let start = 0; start < entries.length; start += BATCH_LIMIT) {
        const chunk = entries.slice(start, start + BATCH_LIMIT);
        try {
          const response = await options.client.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: options.queueUrl, Entries: chunk }));
          for (const failure of response.Failed ?? []) {
            options.logger.warn('could not shorten a failed record\'s wait: it returns after the visibility timeout', { code: failure.Code, error: failure.Message });
          }
        } catch (error) {
          options.logger.warn('could not shorten the failed records\' wait: they return after the visibility timeout', { records: chunk.length, error: errorMessage(error) });
        }
      }
    },
  };
}
