/**
 * Lambda entry for asynchronous turns: SQS batches (reported as partial batch failures) from the
 * queue and from the event queue the EventBridge rule feeds, EventBridge `AgentTurnRequested`
 * events, and direct invokes with {conversationId, message, requestId}. Every finished turn is
 * announced as `AgentTurnCompleted` on EVENT_BUS_NAME. An `owner` is taken only from the senders of
 * OWNER_SOURCES (lib/queue/senders.ts).
 */
import './interpreted-zod.ts';
import './early-mcp-servers.ts';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { createSqsRedeliveryScheduler } from '../lib/adapters/aws/sqs-redelivery.ts';
import { createEventBridgeTurnAnnouncer } from '../lib/adapters/aws/eventbridge-announcer.ts';
import { createSkippingAnnouncer } from '../lib/queue/announcer.ts';
import type { RedeliveryScheduler } from '../lib/core/ports/redelivery.ts';
import { redeliveryByQueue } from '../lib/queue/redelivery.ts';
import { createQueueWorker, type WorkerOutput } from '../lib/queue/worker.ts';
import { agent, config, logger, metrics, powertools, settings } from './runtime.ts';
import { endUnclaimed } from '../lib/adapters/mcp/early-start.ts';

// The MCP servers connect and list their tools while the function loads (Lambda's init phase),
// not on the first turn's path; a stdio server process started early and not taken is ended then.
void agent.connect().then(endUnclaimed);

export { agent };

const eventBusName = settings.eventBusName;
const announcer = eventBusName
  ? createEventBridgeTurnAnnouncer({ client: new EventBridgeClient({}), eventBusName })
  : createSkippingAnnouncer(logger);

// The stack passes the queues' URLs so failed records come back after a short backoff.
const sqs = new SQSClient({});
const schedulerFor = (queueUrl: string) => createSqsRedeliveryScheduler({ client: sqs, queueUrl, logger });
const { queueUrl, eventQueueUrl, eventQueueArn } = settings;
let redelivery: RedeliveryScheduler | undefined = queueUrl ? schedulerFor(queueUrl) : undefined;
if (redelivery && eventQueueUrl && eventQueueArn) redelivery = redeliveryByQueue(new Map([[eventQueueArn, schedulerFor(eventQueueUrl)]]), redelivery);

const work = createQueueWorker({
  agent,
  announcer,
  logger,
  config,
  trustedSenders: settings.ownerSources,
  ...(eventQueueArn ? { eventQueueArn } : {}),
  ...(redelivery ? { redelivery } : {}),
});

export const handler = middy<unknown, WorkerOutput, Error, Context>()
  .use(injectLambdaContext(powertools, { resetKeys: true }))
  .use(logMetrics(metrics))
  .handler((event, context) => work(event, context));
