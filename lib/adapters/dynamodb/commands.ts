/**
 * The document client's command classes, loaded when the first command is sent. The adapters here
 * are named by buildAgent (lib/build-agent.ts) whichever store it is given, so importing the SDK
 * at the top would load and evaluate the whole DynamoDB client (about 16 MB of a process's memory)
 * in code that embeds the agent with the in-memory store and never sends a command; whoever does
 * send one built the document client, so the SDK is loaded by then anyway. Bundles keep the SDK
 * in the same file (esbuild inlines the import and runs it on first use).
 */
let loaded: Promise<typeof import('@aws-sdk/lib-dynamodb')> | undefined;

export function documentCommands(): Promise<typeof import('@aws-sdk/lib-dynamodb')> {
  return (loaded ??= import('@aws-sdk/lib-dynamodb'));
}
