import { Duration, Stack } from 'aws-cdk-lib';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { APPROVAL_DECIDED, TURN_REQUESTED } from '../lib/queue/event-names.ts';

/**
 * Records per worker invocation. The worker runs a batch's conversations concurrently (one
 * conversation's records in order), all inside one invocation's time: five share a warm container
 * (its MCP connections and tool catalogue) while leaving each turn most of the 15 minutes.
 */
export const WORKER_BATCH_SIZE = 5;
/**
 * How long Lambda may wait to fill a batch. A turn takes seconds to minutes, so two seconds of
 * waiting is noise for its caller, and a burst of requests then shares one invocation.
 */
export const WORKER_BATCHING_WINDOW = Duration.seconds(2);

export interface AsyncTurnsProps {
  worker: IFunction;
  workerTimeout: Duration;
  maxReceiveCount: number;
  /** Concurrent worker invocations the queue may start (2 to 1000). */
  maxConcurrency: number;
}

/**
 * Asynchronous turns: callers send `AgentTurnRequested` events to the bus (or messages to the
 * queue, or invoke the worker directly). The rule puts each event on the queue rather than
 * invoking the worker itself, so events get the queue's retries, partial batch failures and its
 * dead-letter queue. The worker announces every finished turn on the same bus.
 */
export class AsyncTurns extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly bus: EventBus;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: AsyncTurnsProps) {
    super(scope, id);
    // SQS-managed encryption (SSE-SQS) rather than the aws/sqs KMS key: EventBridge cannot use that
    // AWS-managed key to send, and SSE-SQS needs no key policy. TLS only, on both queues.
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14), // the maximum: time to notice, inspect and redrive
    });
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // AWS's rule for a Lambda event source: at least six times the function timeout (plus the
      // batching window), so a message is not redelivered while a throttled or retried invocation
      // may still be working on it.
      visibilityTimeout: Duration.seconds(6 * props.workerTimeout.toSeconds() + WORKER_BATCHING_WINDOW.toSeconds()),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
    props.worker.addEventSource(new SqsEventSource(this.queue, {
      batchSize: WORKER_BATCH_SIZE,
      maxBatchingWindow: WORKER_BATCHING_WINDOW,
      reportBatchItemFailures: true,
      // Each invocation runs paid model loops for up to 15 minutes: a burst of queued turns must not
      // scale to SQS's 1,250 pollers and starve the API's functions. Unlike reserved concurrency,
      // this does not throttle received messages (which would count towards maxReceiveCount).
      maxConcurrency: props.maxConcurrency,
    }));

    this.bus = new EventBus(this, 'Bus', { eventBusName: `${Stack.of(this).stackName}-events` });
    this.rule = new Rule(this, 'TurnRequested', {
      eventBus: this.bus,
      description: `Queues ${TURN_REQUESTED} and ${APPROVAL_DECIDED} events for the worker`,
      eventPattern: { detailType: [TURN_REQUESTED, APPROVAL_DECIDED] },
      // An event EventBridge cannot deliver to the queue (after its own retries) is kept in the
      // dead-letter queue too, rather than dropped.
      targets: [new SqsQueue(this.queue, { deadLetterQueue: this.deadLetterQueue })],
    });
  }

  /** The worker announces finished turns on this bus, and nowhere else. */
  allowPublishing(): PolicyStatement {
    return new PolicyStatement({ actions: ['events:PutEvents'], resources: [this.bus.eventBusArn] });
  }
}
