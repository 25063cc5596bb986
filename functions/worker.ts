/**
 * Lambda entry for asynchronous turns: SQS batches (reported as partial batch failures),
 * EventBridge `AgentTurnRequested` events, and direct invokes with {conversationId, message,
 * requestId}. Every finished turn is announced as `AgentTurnCompleted` on EVENT_BUS_NAME.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { createSqsRedeliveryScheduler } from '../lib/adapters/aws/sqs-redelivery.ts';
import { createEventBridgeTurnAnnouncer } from '../lib/adapters/aws/turn-events.ts';
import { createSkippingAnnouncer } from '../lib/queue/announcer.ts';
import { createQueueWorker, type WorkerOutput } from '../lib/queue/worker.ts';
import { agent, config, logger, metrics, powertools, settings, tracer } from './runtime.ts';

export { agent };

const eventBusName = settings.eventBusName;
const announcer = eventBusName
  ? createEventBridgeTurnAnnouncer({ client: tracer.captureAWSv3Client(new EventBridgeClient({})), eventBusName })
  : createSkippingAnnouncer(logger);

// The stack passes the queue's URL so failed records come back after a short backoff.
const queueUrl = settings.queueUrl;
const redelivery = queueUrl ? createSqsRedeliveryScheduler({ client: tracer.captureAWSv3Client(new SQSClient({})), queueUrl, logger }) : undefined;

const work = createQueueWorker({ agent, announcer, logger, config, ...(redelivery ? { redelivery } : {}) });

export const handler = middy<unknown, WorkerOutput, Error, Context>()
  .use(injectLambdaContext(powertools, { resetKeys: true }))
  .use(logMetrics(metrics))
  .use(captureLambdaHandler(tracer))
  .handler((event, context) => work(event, context));
