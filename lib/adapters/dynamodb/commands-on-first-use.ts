/**
 * The document client's commands an embedder's DynamoDBDocumentClient sends, loaded when the first
 * is sent. The adapters are named by buildAgent (lib/build-agent.ts) whichever store it is given, so importing
 * the SDK at the top would load and evaluate the DynamoDB client (about 8 MB of a process's peak
 * memory) in code that embeds the agent with the in-memory store and never sends a command.
 *
 * sdk-documents.ts imports this as `#dynamodb-commands` (package.json "imports"). The Lambda
 * functions send their requests with the lean client (lean-documents.ts), so their bundles take
 * functions/substitutes/without-dynamodb-commands.ts instead (infra/bundling.ts) and carry none
 * of the SDK's DynamoDB client.
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
