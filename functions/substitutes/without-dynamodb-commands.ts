/**
 * Stands in for lib/adapters/dynamodb/commands-on-first-use.ts (`#dynamodb-commands`) in the Lambda
 * bundles (infra/bundling.ts, functionSubstitutes): the functions send DynamoDB requests with the
 * lean client (lib/adapters/dynamodb/lean-documents.ts), never through an SDK document client, so
 * the SDK's DynamoDB client and document client (about 200 KB, and 70 ms of a cold start's CPU)
 * are left out of their bundles.
 */
import type { DocumentCommands } from '../../lib/adapters/dynamodb/commands-on-first-use.ts';

export function documentCommands(): Promise<DocumentCommands> {
  return Promise.reject(new Error('the Lambda functions send DynamoDB requests with the lean client; an SDK document client is not bundled'));
}
