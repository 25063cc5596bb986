import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/**
 * The context the Lambda runtime hands a handler, with a fresh request id per call. The remaining
 * time stays `remainingMs` (default 60 s): the handlers read it once, when the invocation starts.
 */
export function lambdaContext(options: { functionName?: string; remainingMs?: number } = {}): Context {
  const { functionName = 'mcp-agent', remainingMs = 60_000 } = options;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2025/05/16/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => remainingMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
