import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ENV } from '../lib/config/environment.ts';
import { AgentApi } from './api.ts';
import { ApiAuthorization } from './auth.ts';
import { usesCodeInterpreter } from './code-interpreter.ts';
import { usesDeepSearch } from './deep-search.ts';
import { agentConfigPath, functionBundling, type FunctionBundleOptions } from './bundling.ts';
import { usesDemoServer } from './demo-server.ts';
import { warnOfSharedMemory } from './memory.ts';
import { AsyncTurns } from './async-turns.ts';
import { AgentFunctions, FUNCTION_SIZING } from './functions.ts';
import { bundledExtensions } from './bundled-extensions.ts';
import { bundledStrategies } from './bundled-strategies.ts';
import { usesUiStreams } from './ui-streams.ts';
import { usesMcpServerDoor } from './mcp-server-door.ts';
import { a2aDoorIsOn } from './a2a-door.ts';
import { toolPolicyFiles } from './tool-policy.ts';
import { FilesBucket, filesSettingsOf } from './files-bucket.ts';
import { HmacKey } from './hmac-key.ts';
import { McpOAuthTokens, oauthServerNames } from './mcp-oauth-tokens.ts';
import { perUserServerNames, UserConnectionKey } from './per-user-connections.ts';
import { acknowledgeProfileModels, bedrockInvokeStatements, deployedModel } from './model-access.ts';
import { ModelApiKey } from './model-api-key.ts';
import { DEFAULT_SETTINGS, type AgentSettings } from './settings.ts';
import { CONVERSATION_TABLE_ACTIONS, ConversationTable, TURN_TABLE_ACTIONS } from './storage.ts';

export interface McpAgentStackProps extends StackProps {
  settings?: AgentSettings;
}

/**
 * The MCP agent service: a REST API streaming the conversation routes from one function, a health
 * function, a worker for asynchronous turns fed by SQS and EventBridge, and the conversation table.
 * Each function is allowed exactly the actions it performs, written out below.
 */
export class McpAgentStack extends Stack {
  /** What the functions bundle (infra/bundling.ts): only the configured model provider's code, the SSM client only where the key is. */
  readonly functionBundle: FunctionBundleOptions;

  constructor(scope: Construct, id: string, props: McpAgentStackProps = {}) {
    super(scope, id, props);
    const settings = { ...DEFAULT_SETTINGS, ...props.settings };
    const removalPolicy = settings.removalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    const conversations = new ConversationTable(this, 'Conversations', { removalPolicy });
    const agentConfig = agentConfigPath(settings.agentConfig);
    const model = deployedModel(agentConfig, settings);
    // Bedrock is reached with the functions' IAM role: there is no key to keep.
    const modelApiKey = model.provider === 'bedrock' ? undefined : new ModelApiKey(this, 'ModelApiKey', {
      secretArn: settings.modelApiKeySecretArn,
      parameterName: settings.modelApiKeyParameterName,
      removalPolicy,
    });
    const hmacKey = new HmacKey(this, 'HmacKey', { removalPolicy });
    // Only a configuration that gives some MCP server an `oauth` block gets the token secret.
    const oauthTokens = oauthServerNames(agentConfig).length > 0 ? new McpOAuthTokens(this, 'McpOAuthTokens', { removalPolicy }) : undefined;
    // Only a configuration with a per-user server (auth.mode: per-user) gets the key that seals its users' tokens.
    const connectionKey = perUserServerNames(agentConfig).length > 0 ? new UserConnectionKey(this, 'UserConnectionKey', { removalPolicy }) : undefined;
    warnOfSharedMemory(this, settings.authMode, agentConfig);
    // Only a configuration that turns files on gets their bucket.
    const filesSettings = filesSettingsOf(agentConfig);
    const files = filesSettings.on ? new FilesBucket(this, 'Files', { ttlDays: filesSettings.ttlDays, removalPolicy }) : undefined;
    const demoServer = usesDemoServer(agentConfig);
    // The SSM client is bundled only where the model key lives in SSM.
    this.functionBundle = { modelProvider: model.provider, ssmClient: modelApiKey !== undefined && settings.modelApiKeyParameterName !== undefined, demoServer, telemetry: settings.otelExporterEndpoint !== undefined, files: filesSettings.on, codeInterpreter: usesCodeInterpreter(agentConfig), deepSearch: usesDeepSearch(agentConfig), uiStreams: usesUiStreams(agentConfig), mcpServerDoor: usesMcpServerDoor(agentConfig), a2a: a2aDoorIsOn(agentConfig), ...bundledStrategies(agentConfig), ...bundledExtensions(agentConfig), ...withToolPolicy(toolPolicyFiles(agentConfig)), ...(connectionKey ? { perUserConnections: true } : {}) };
    const functions = new AgentFunctions(this, 'Functions', {
      environment: {
        [ENV.authMode]: settings.authMode,
        [ENV.ownerFrom]: settings.ownerFrom,
        ...modelApiKey?.environment,
        ...(settings.modelProvider === undefined ? {} : { [ENV.modelProvider]: settings.modelProvider }),
        ...hmacKey.environment,
        ...oauthTokens?.environment,
        ...connectionKey?.environment,
        ...files?.environment,
        ...(settings.modelBaseUrl === undefined ? {} : { [ENV.modelBaseUrl]: settings.modelBaseUrl }),
        ...(settings.modelName === undefined ? {} : { [ENV.modelName]: settings.modelName }),
        ...(settings.otelExporterEndpoint === undefined ? {} : { [ENV.otelExporterEndpoint]: settings.otelExporterEndpoint }),
      },
      tableName: conversations.table.tableName,
      corsAllowOrigins: settings.corsAllowOrigins,
      bundling: functionBundling(agentConfig, this.functionBundle),
      demoServer,
      removalPolicy,
    });
    const { stream, worker, healthAndFallbacks } = functions;
    const asyncTurns = new AsyncTurns(this, 'AsyncTurns', {
      worker: worker.function,
      workerRole: worker.function.role!,
      eventSources: settings.eventSources,
      workerTimeout: FUNCTION_SIZING.worker.timeout,
      maxReceiveCount: settings.maxReceiveCount,
      maxConcurrency: settings.workerMaxConcurrency,
    });
    worker.function.addEnvironment(ENV.eventBusName, asyncTurns.bus.eventBusName);
    // Failed records are made visible again after a short backoff (lib/queue/redelivery.ts).
    worker.function.addEnvironment(ENV.queueUrl, asyncTurns.queue.queueUrl);
    worker.function.addEnvironment(ENV.eventQueueUrl, asyncTurns.eventQueue.queueUrl);
    // Records of this queue came from the rule: their event's source is the sender.
    worker.function.addEnvironment(ENV.eventQueueArn, asyncTurns.eventQueue.queueArn);
    worker.function.addEnvironment(ENV.ownerSources, settings.ownerSources.join(','));

    // Every function loads the runtime, which reads the model API key and the HMAC key at cold start.
    for (const agentFunction of [stream, worker, healthAndFallbacks]) {
      if (modelApiKey) agentFunction.function.addToRolePolicy(modelApiKey.readStatement);
      agentFunction.function.addToRolePolicy(hmacKey.readStatement);
    }
    // The functions that run turns call the model; health only reports which one is configured.
    if (model.provider === 'bedrock') {
      const statements = bedrockInvokeStatements(this, model, settings.modelRegions);
      for (const agentFunction of [stream, worker]) {
        for (const statement of statements) agentFunction.function.addToRolePolicy(statement);
        acknowledgeProfileModels(agentFunction.function, statements);
      }
    }
    // Every function connects to the MCP servers (health too), so each may renew and store a token.
    if (oauthTokens) for (const agentFunction of [stream, worker, healthAndFallbacks]) agentFunction.function.addToRolePolicy(oauthTokens.readWriteStatement);
    // Turns call per-user servers with their owners' tokens; the conversation routes also serve /connections. Health reads none.
    if (connectionKey) for (const agentFunction of [stream, worker]) agentFunction.function.addToRolePolicy(connectionKey.useStatement);
    // The conversation routes run turns and delete conversations; the worker only runs turns and
    // announces them (its SQS actions come from the event source). Health touches no data.
    stream.function.addToRolePolicy(conversations.allow(CONVERSATION_TABLE_ACTIONS));
    worker.function.addToRolePolicy(conversations.allow(TURN_TABLE_ACTIONS));
    worker.function.addToRolePolicy(asyncTurns.allowPublishing());
    // Turns write and read files; only the conversation routes delete them (with the conversation).
    files?.allow(stream.function, { deletes: true });
    files?.allow(worker.function, { deletes: false });

    const authorization = new ApiAuthorization(this, 'Authorization', {
      authMode: settings.authMode,
      userPoolArn: settings.userPoolArn,
      removalPolicy,
    });
    const api = new AgentApi(this, 'Api', {
      stream: stream.function,
      healthAndFallbacks: healthAndFallbacks.function,
      methodOptions: authorization.methodOptions,
      corsAllowOrigins: settings.corsAllowOrigins,
      throttleRateLimit: settings.throttleRateLimit,
      throttleBurstLimit: settings.throttleBurstLimit,
      mcpServerDoor: this.functionBundle.mcpServerDoor === true,
      removalPolicy,
      a2a: this.functionBundle.a2a ?? false,
      protectedResourceMetadata: this.functionBundle.mcpServerDoor === true && authorization.userPoolId !== undefined,
      connections: connectionKey !== undefined,
    });
    // Where a provider sends a person back after they connect an account: the API itself (its
    // restApiId, not its deployment's URL, which would make the functions depend on their own routes).
    if (connectionKey) {
      const publicBaseUrl = settings.publicBaseUrl ?? api.executeApiUrl();
      for (const agentFunction of [stream, worker]) agentFunction.function.addEnvironment(ENV.publicBaseUrl, publicBaseUrl);
    }
    // The MCP server door names the pool as its authorization server (docs/mcp-server-door.md).
    if (authorization.userPoolId !== undefined) for (const agentFunction of [stream, healthAndFallbacks]) agentFunction.function.addEnvironment(ENV.cognitoUserPoolId, authorization.userPoolId);

    new CfnOutput(this, 'ApiUrl', { value: api.api.url, description: 'The HTTP API (append conversations, health)' });
    new CfnOutput(this, 'TableName', { value: conversations.table.tableName });
    if (files) new CfnOutput(this, 'FilesBucketName', { value: files.bucket.bucketName, description: 'The conversations\' files (agent.yml files)' });
    new CfnOutput(this, 'QueueUrl', { value: asyncTurns.queue.queueUrl, description: 'Send {conversationId, message, requestId} for an asynchronous turn' });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: asyncTurns.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'EventBusName', { value: asyncTurns.bus.eventBusName, description: 'AgentTurnRequested in, AgentTurnCompleted out' });
    new CfnOutput(this, 'WorkerFunctionName', { value: worker.function.functionName, description: 'Invoke directly with {conversationId, message, requestId}' });
    if (modelApiKey?.createdSecret !== undefined) {
      new CfnOutput(this, 'ModelApiKeySecretArn', { value: modelApiKey.createdSecret.secretArn, description: 'Store the model API key here after deploy' });
    }
    if (oauthTokens !== undefined) {
      new CfnOutput(this, 'McpOAuthTokenSecretArn', {
        value: oauthTokens.secret.secretArn,
        description: 'MCP servers\' OAuth tokens: log a server in with MCP_OAUTH_TOKEN_SECRET_ARN=<this> npm run mcp-login -- <server>',
      });
    }
    if (authorization.userPool !== undefined && authorization.userPoolClient !== undefined) {
      new CfnOutput(this, 'UserPoolId', { value: authorization.userPool.userPoolId });
      new CfnOutput(this, 'UserPoolClientId', { value: authorization.userPoolClient.userPoolClientId });
    }
  }
}

const withToolPolicy = (files: ReturnType<typeof toolPolicyFiles>) => (files ? { toolPolicy: files } : {});
