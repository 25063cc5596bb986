/**
 * The document client's commands the DynamoDB adapters send, loaded when the first is sent. The
 * adapters are named by buildAgent (lib/build-agent.ts) whichever store it is given, so importing
 * the SDK at the top would load and evaluate the DynamoDB client (about 8 MB of a process's peak
 * memory) in code that embeds the agent with the in-memory store and never sends a command.
 *
 * The adapters import this as `#dynamodb-commands` (package.json "imports"). The Lambda functions
 * always send commands, and a dynamically imported module makes esbuild wrap the SDK modules it
 * reaches and shake them far less (about 60 KB more per bundle), so their bundles take
 * functions/substitutes/dynamodb-commands-loaded.ts instead (infra/bundling.ts).
 */
export interface DocumentCommands {
  BatchWriteCommand: typeof import('@aws-sdk/lib-dynamodb').BatchWriteCommand;
  DeleteCommand: typeof import('@aws-sdk/lib-dynamodb').DeleteCommand;
  GetCommand: typeof import('@aws-sdk/lib-dynamodb').GetCommand;
  PutCommand: typeof import('@aws-sdk/lib-dynamodb').PutCommand;
  QueryCommand: typeof import('@aws-sdk/lib-dynamodb').QueryCommand;
  UpdateCommand: typeof import('@aws-sdk/lib-dynamodb').UpdateCommand;
}

let loaded: Promise<DocumentCommands> | undefined;

export function documentCommands(): Promise<DocumentCommands> {
  return (loaded ??= import('@aws-sdk/lib-dynamodb'));
}
