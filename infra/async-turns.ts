import { Duration, Stack } from 'aws-cdk-lib';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { AnyPrincipal, Effect, type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { AGENT_EVENT_SOURCE, APPROVAL_DECIDED, TURN_REQUESTED } from '../lib/core/event-names.ts';

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
  /** The worker's role: the one principal that may put events with the stack's own source. */
  workerRole: IRole;
  /** Sources whose AgentTurnRequested / AgentApprovalDecided events are queued, besides the stack's own. */
  eventSources: readonly string[];
  workerTimeout: Duration;
  maxReceiveCount: number;
  /** Concurrent worker invocations each queue may start (2 to 1000). */
  maxConcurrency: number;
}

/**
 * Asynchronous turns, through two queues:
 * - the queue: for callers that send messages themselves (any principal the account's IAM
 *   policies allow sqs:SendMessage);
 * - the event queue: for `AgentTurnRequested` / `AgentApprovalDecided` events on the bus, put there
 *   by the rule and by no one else (its policy denies every other sender). So the worker knows an
 *   event-queue record really is an event of a listed source, and can trust that source as the
 *   sender (lib/queue/senders.ts); a message on the plain queue could claim any source.
 * Events go through a queue rather than invoking the worker, so they get the queue's retries,
 * partial batch failures and dead-letter queue. The worker announces every finished turn on the
 * same bus, under a source only it may use.
 */
export class AsyncTurns extends Construct {
  readonly queue: Queue;
  readonly eventQueue: Queue;
  readonly deadLetterQueue: Queue;
  readonly bus: EventBus;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: AsyncTurnsProps) {
    super(scope, id);
    // SQS-managed encryption (SSE-SQS) rather than the aws/sqs KMS key: EventBridge cannot use that
    // AWS-managed key to send, and SSE-SQS needs no key policy. TLS only, on every queue.
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14), // the maximum: time to notice, inspect and redrive
    });
    const workerQueue = (queueId: string) => {
      const queue = new Queue(this, queueId, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        // AWS's rule for a Lambda event source: at least six times the function timeout (plus the
        // batching window), so a message is not redelivered while a throttled or retried invocation
        // may still be working on it.
        visibilityTimeout: Duration.seconds(6 * props.workerTimeout.toSeconds() + WORKER_BATCHING_WINDOW.toSeconds()),
        deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
      });
      props.worker.addEventSource(new SqsEventSource(queue, {
        batchSize: WORKER_BATCH_SIZE,
        maxBatchingWindow: WORKER_BATCHING_WINDOW,
        reportBatchItemFailures: true,
        // Each invocation runs paid model loops for up to 15 minutes: a burst of queued turns must not
        // scale to SQS's 1,250 pollers and starve the API's functions. Unlike reserved concurrency,
        // this does not throttle received messages (which would count towards maxReceiveCount).
        maxConcurrency: props.maxConcurrency,
      }));
      return queue;
    };
    this.queue = workerQueue('Queue');
    this.eventQueue = workerQueue('EventQueue');

    this.bus = new EventBus(this, 'Bus', { eventBusName: `${Stack.of(this).stackName}-events` });
    const sources = [AGENT_EVENT_SOURCE, ...props.eventSources];
    const requests = [TURN_REQUESTED, APPROVAL_DECIDED];
    this.rule = new Rule(this, 'TurnRequested', {
      eventBus: this.bus,
      description: `Queues ${TURN_REQUESTED} and ${APPROVAL_DECIDED} events of the listed sources for the worker`,
      eventPattern: { source: sources, detailType: requests },
      // An event EventBridge cannot deliver to the queue (after its own retries) is kept in the
      // dead-letter queue too, rather than dropped.
      targets: [new SqsQueue(this.eventQueue, { deadLetterQueue: this.deadLetterQueue })],
    });
    // A negated condition on a key the request lacks matches: a principal's own SendMessage (no
    // aws:SourceArn) is denied, whatever its IAM policies allow. Only the rule's deliveries pass.
    this.eventQueue.addToResourcePolicy(new PolicyStatement({
      sid: 'OnlyTheRuleSends',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['sqs:SendMessage'],
      resources: [this.eventQueue.queueArn],
      conditions: { ArnNotEquals: { 'aws:SourceArn': this.rule.ruleArn } },
    }));

    // Any principal of the account with events:PutEvents (often granted on *) may put events with
    // any source but aws.*: the bus itself says who may use which.
    // - Consumers route AgentTurnCompleted by its owner, so only the worker may announce.
    this.bus.addToResourcePolicy(new PolicyStatement({
      sid: 'OnlyTheWorkerAnnounces',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['events:PutEvents'],
      resources: [this.bus.eventBusArn],
      conditions: { StringEquals: { 'events:source': AGENT_EVENT_SOURCE }, ArnNotEquals: { 'aws:PrincipalArn': props.workerRole.roleArn } },
    }));
    // - A turn request from an unlisted source is refused at once, rather than silently not routed.
    this.bus.addToResourcePolicy(new PolicyStatement({
      sid: 'OnlyListedSourcesRequestTurns',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['events:PutEvents'],
      resources: [this.bus.eventBusArn],
      conditions: { StringEquals: { 'events:detail-type': requests }, StringNotEquals: { 'events:source': sources.length === 1 ? sources[0] : sources } },
    }));
  }
  /** The worker announces finished turns on this bus, and nowhere else. */
  allowPublishing(): PolicyStatement {
    return new PolicyStatement({ actions: ['events:PutEvents'], resources: [this.bus.eventBusArn] });
  }
}
