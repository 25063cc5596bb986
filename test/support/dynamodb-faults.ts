/**
 * The faults the DynamoDB fault proxy can inject, and the schedule that decides which request
 * gets which. One fault per request: the first injected fault that matches and is not used up.
 */

/** Which requests a fault applies to. */
export interface FaultMatch {
  /** The operation as named after the dot in X-Amz-Target: 'PutItem', 'UpdateItem', 'Query'. */
  operation: string;
  /**
   * Only requests whose parsed JSON body passes. The body is the low-level wire shape, as the
   * document client marshalled it: `{ TableName, Item: { pk: { S: 'x' } }, ConditionExpression }`.
   */
  when?: (body: Record<string, unknown>) => boolean;
  /** How many matching requests the fault applies to. Default 1; a throttle with `forMs` defaults to all. */
  times?: number;
}

export type ThrottleError = 'ProvisionedThroughputExceededException' | 'ThrottlingException';

export type FaultEffect =
  /**
   * The request is forwarded and commits upstream; the client never gets the real answer.
   * 'internal-error' (default): the client gets HTTP 500 InternalServerError, which the SDK retries.
   * 'reset': the client's socket is destroyed once the upstream answer is in.
   */
  | { kind: 'lose-response'; how?: 'internal-error' | 'reset' }
  /** HTTP 400 with a throttling error, not forwarded; for `times` requests or for `forMs` after injection. */
  | { kind: 'throttle'; error?: ThrottleError; forMs?: number }
  /** Never answered and not forwarded: the socket stays open until the client gives up or the proxy closes. */
  | { kind: 'hang' }
  /** The client's socket is destroyed at once; not forwarded. */
  | { kind: 'reset' }
  /** Forwarded after `ms`, even if the client has given up by then (a late write, as a slow network makes). */
  | { kind: 'delay'; ms: number };

export type Fault = FaultMatch & FaultEffect;
export type FaultKind = Fault['kind'];

/** A fault once injected: how often it has applied so far. */
export interface InjectedFault {
  readonly fault: Fault;
  readonly applied: number;
}

interface ScheduledFault extends InjectedFault {
  applied: number;
  /** Date.now() after which a `forMs` throttle no longer applies. */
  until: number;
}

export interface FaultSchedule {
  inject(fault: Fault): InjectedFault;
  /** The fault for this request, counted as applied; undefined when the request passes through. */
  take(operation: string, body: Record<string, unknown>): Fault | undefined;
  clear(): void;
}

export function createFaultSchedule(): FaultSchedule {
  let scheduled: ScheduledFault[] = [];

  const timeWindow = (fault: Fault) => (fault.kind === 'throttle' && fault.forMs !== undefined ? fault.forMs : Infinity);
  const isUsedUp = (entry: ScheduledFault, now: number) => {
    const { fault } = entry;
    const times = fault.times ?? (fault.kind === 'throttle' && fault.forMs !== undefined ? Infinity : 1);
    return entry.applied >= times || now > entry.until;
  };

  return {
    inject(fault) {
      const entry: ScheduledFault = { fault, applied: 0, until: Date.now() + timeWindow(fault) };
      scheduled.push(entry);
      return entry;
    },
    take(operation, body) {
      const now = Date.now();
      const entry = scheduled.find(
        (candidate) =>
          !isUsedUp(candidate, now) && candidate.fault.operation === operation && (candidate.fault.when?.(body) ?? true),
      );
      if (!entry) return undefined;
      entry.applied += 1;
      return entry.fault;
    },
    clear() {
      scheduled = [];
    },
  };
}

/** The JSON error body DynamoDB sends; the SDK reads the error name after the '#'. */
export function dynamoErrorBody(type: string, message: string): string {
  return JSON.stringify({ __type: type, message });
}

export const INTERNAL_SERVER_ERROR = 'com.amazonaws.dynamodb.v20120810#InternalServerError';

/** DynamoDB names its own throttle under its namespace and the generic one under coral's. */
export const THROTTLE_TYPES: Record<ThrottleError, string> = {
  ProvisionedThroughputExceededException: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
  ThrottlingException: 'com.amazon.coral.availability#ThrottlingException',
};
