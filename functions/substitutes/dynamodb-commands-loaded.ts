/**
 * Stands in for lib/adapters/dynamodb/commands-on-first-use.ts (`#dynamodb-commands`) in the Lambda
 * bundles (infra/bundling.ts, functionSubstitutes): every function sends DynamoDB commands on its
 * first request, and importing them statically keeps the bundle as small as before (a dynamic
 * import makes esbuild keep about 60 KB more of the SDK).
 */
import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DocumentCommands } from '../../lib/adapters/dynamodb/commands-on-first-use.ts';

const commands: Promise<DocumentCommands> = Promise.resolve({ BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand });

export function documentCommands(): Promise<DocumentCommands> {
  return commands;
}
