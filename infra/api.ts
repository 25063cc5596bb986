import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat, AuthorizationType, Cors, EndpointType, LambdaIntegration, LogGroupLogDestination, MethodLoggingLevel, type MethodOptions,
  ResponseTransferMode, ResponseType, RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/**
 * A streamed response may run for 15 minutes (API Gateway's limit for streaming; buffered
 * integrations stop at 29 s). aws-cdk-lib checks only the 50 ms minimum, so the limit is kept here.
 * While a stream is open, API Gateway also closes it after 5 minutes without a byte (Regional
 * endpoints): the SSE heartbeat keeps a long turn's stream alive.
 */
export const STREAMING_INTEGRATION_TIMEOUT = Duration.minutes(15);

/** The headers a browser may send: JSON bodies, SSE, and both auth modes (SigV4 and Cognito tokens). */
// X-Amz-Content-Sha256 and X-Amz-User-Agent: the AWS SDK's SigV4 signer sends them from browsers.
// X-Conversation-Id and Idempotency-Key: the OpenAI-compatible front door's request headers;
// Last-Event-ID: a fetch-based EventSource resuming a turn's stream from a page; A2A-Version: an A2A
// client in a page choosing the protocol version (docs/a2a.md).
export const CORS_ALLOW_HEADERS = ['Content-Type', 'Accept', 'Authorization', 'X-Amz-Date', 'X-Amz-Security-Token', 'X-Amz-Content-Sha256', 'X-Amz-User-Agent', 'X-Api-Key', 'X-Conversation-Id', 'Idempotency-Key', 'Last-Event-ID', 'A2A-Version'];

/** The one stage (CDK's default name, written out: the 401's metadata URL names it, and the stage's own token would be a cycle). */
const STAGE_NAME = 'prod';

export interface AgentApiProps {
  /** Serves the conversation and memory routes, streaming. */
  stream: IFunction;
  /** Serves GET /health and the 404/405 of every other route and method, buffered. */
  healthAndFallbacks: IFunction;
  methodOptions: MethodOptions;
  corsAllowOrigins: string[];
  throttleRateLimit: number;
  throttleBurstLimit: number;
  /** agent.yml turns mcpServerDoor on: POST /mcp (the agent as an MCP server) goes to the streaming function. */
  mcpServerDoor?: boolean;
  removalPolicy: RemovalPolicy;
  /** agent.yml turns the A2A front door on: its card and JSON-RPC endpoint are routed to the stream function. */
  a2a?: boolean;
  /**
   * mcpServerDoor under cognito: the door's OAuth protected resource metadata (RFC 9728) is routed
   * with no authorizer, since an MCP client reads it to learn where to get a token.
   */
  protectedResourceMetadata?: boolean;
  /**
   * agent.yml has a per-user server: GET /connections and DELETE /connections/{server} (the caller's
   * own), and GET /connections/{server}/callback, where a provider sends a person's browser back,
   * with no authorizer (the state it carries names the owner).
   */
  connections?: boolean;
}

/**
 * The HTTP contract on an API Gateway REST API. REST rather than HTTP API: only a REST API streams a
 * Lambda response, and only streaming lets a turn outlive the 29/30 s integration limits.
 * Regional: clients reach it directly (an edge-optimized endpoint would cut idle streams at 30 s).
 */
export class AgentApi extends Construct {
  readonly api: RestApi;

  constructor(scope: Construct, id: string, props: AgentApiProps) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: props.removalPolicy });
    this.api = new RestApi(this, 'RestApi', {
      restApiName: `${Stack.of(this).stackName}-api`,
      description: 'MCP agent service: conversations with a model that uses MCP tools',
      endpointTypes: [EndpointType.REGIONAL],
      // Access logging needs the region's API Gateway CloudWatch Logs role; the stack sets it (the
      // role is retained when the stack is deleted, as other APIs of the account may rely on it).
      cloudWatchRole: true,
      deployOptions: {
        stageName: STAGE_NAME,
        throttlingRateLimit: props.throttleRateLimit,
        throttlingBurstLimit: props.throttleBurstLimit,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        // Execution logs for every method at ERROR: integration and authorizer failures are
        // visible; request and response bodies (data trace) never reach the logs.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
      },
      defaultCorsPreflightOptions: {
        allowOrigins: props.corsAllowOrigins.includes('*') ? Cors.ALL_ORIGINS : props.corsAllowOrigins,
        allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
        allowHeaders: CORS_ALLOW_HEADERS,
      },
      defaultMethodOptions: props.methodOptions,
    });
    // The stack outputs the URL once, as ApiUrl; RestApi's own copy of it would only duplicate it.
    this.api.node.tryRemoveChild('Endpoint');

    const streaming = new LambdaIntegration(props.stream, { responseTransferMode: ResponseTransferMode.STREAM, timeout: STREAMING_INTEGRATION_TIMEOUT });
    // Health is quick and small: buffered, within the default 29 s.
    const buffered = new LambdaIntegration(props.healthAndFallbacks);
    const conversations = this.api.root.addResource('conversations');
    conversations.addMethod('POST', streaming);
    const conversation = conversations.addResource('{conversationId}');
    conversation.addMethod('GET', streaming);
    conversation.addMethod('DELETE', streaming);
    const messages = conversation.addResource('messages');
    messages.addMethod('POST', streaming);
    const approvals = conversation.addResource('approvals');
    approvals.addMethod('POST', streaming);
    const turns = conversation.addResource('turns');
    const turn = turns.addResource('{turn}');
    const trace = turn.addResource('trace');
    trace.addMethod('GET', streaming);
    // The conversation's files (agent.yml files): served by the stream function, which reads the bucket.
    const files = conversation.addResource('files');
    files.addMethod('GET', streaming);
    const file = files.addResource('{name}');
    file.addMethod('GET', streaming);
    const health = this.api.root.addResource('health');
    health.addMethod('GET', buffered);
    // The OpenAI-compatible front door: a chat completion is a whole agent turn, streamed or not.
    const v1 = this.api.root.addResource('v1');
    const models = v1.addResource('models');
    models.addMethod('GET', streaming);
    const model = models.addResource('{model}');
    model.addMethod('GET', streaming);
    const completions = v1.addResource('chat').addResource('completions');
    completions.addMethod('POST', streaming);

    // The UI toolkit doors (agent.yml uiStreams, docs/ui-streams.md): each POST is a turn, streamed.
    const ui = this.api.root.addResource('ui');
    const aiSdkChat = ui.addResource('ai-sdk').addResource('chat');
    aiSdkChat.addMethod('POST', streaming);
    const agUi = ui.addResource('ag-ui');
    agUi.addMethod('POST', streaming);
    // The agent as an MCP server (docs/mcp-server-door.md): every JSON-RPC message is a POST, and a
    // call runs a turn whose progress may stream. Stateless: GET and DELETE get the door's 405.
    const mcp = props.mcpServerDoor ? this.api.root.addResource('mcp') : undefined;
    mcp?.addMethod('POST', streaming);

    // The owner's memory notes: served by the stream function, which reads and writes the table.
    const memory = this.api.root.addResource('memory');
    memory.addMethod('GET', streaming);
    memory.addMethod('DELETE', streaming);
    const note = memory.addResource('{noteId}');
    note.addMethod('DELETE', streaming);

    // The A2A front door (docs/a2a.md): the agent card, and JSON-RPC whose message/stream streams a turn.
    const a2aResources = [];
    const wellKnown = () => this.api.root.getResource('.well-known') ?? this.api.root.addResource('.well-known');
    if (props.a2a) {
      const card = wellKnown().addResource('agent-card.json');
      card.addMethod('GET', streaming);
      const jsonRpc = this.api.root.addResource('a2a');
      jsonRpc.addMethod('POST', streaming);
      a2aResources.push(card, jsonRpc);
    }

    // The MCP server door's protected resource metadata, at RFC 9728's path and at the path an MCP
    // client tries first (the resource's path appended): public, as a discovery document must be.
    const metadataResources = [];
    if (props.protectedResourceMetadata) {
      const metadata = wellKnown().addResource('oauth-protected-resource');
      metadataResources.push(metadata, metadata.addResource('mcp'));
      for (const resource of metadataResources) {
        const get = resource.addMethod('GET', buffered, { authorizationType: AuthorizationType.NONE });
        Validations.of(get).acknowledge(
          { id: 'AwsSolutions::AwsSolutions-APIG4', reason: 'OAuth protected resource metadata (RFC 9728): a public document that tells an MCP client which Cognito user pool issues tokens for /mcp; it reveals nothing else and runs no turn.' },
          { id: 'AwsSolutions::AwsSolutions-COG4', reason: 'The metadata is read before the client has a token, so it cannot require one.' },
        );
      }
    }

    // Per-user connections (docs/users-own-accounts.md).
    const connectionResources = [];
    if (props.connections) {
      const connections = this.api.root.addResource('connections');
      connections.addMethod('GET', streaming);
      const connection = connections.addResource('{server}');
      connection.addMethod('DELETE', streaming);
      const callback = connection.addResource('callback');
      const get = callback.addMethod('GET', streaming, { authorizationType: AuthorizationType.NONE });
      Validations.of(get).acknowledge(
        { id: 'AwsSolutions::AwsSolutions-APIG4', reason: 'A provider redirects a person\'s browser here after they connect an account: the browser carries no API credentials. The single-use state in the query, stored with its owner when the connection started, is what authorizes it.' },
        { id: 'AwsSolutions::AwsSolutions-COG4', reason: 'A browser redirect from an OAuth provider carries no Cognito token; the state proves the owner.' },
      );
      connectionResources.push(connections, connection, callback);
    }

    // Every other method and path reaches the contract too, which answers 405 with an Allow header
    // or 404 naming the routes, instead of API Gateway's bare 403 "Missing Authentication Token"
    // (under /v1 in OpenAI's error shape). A specific method wins over ANY; OPTIONS stays with the
    // CORS preflight.
    for (const resource of [this.api.root, conversations, conversation, messages, approvals, turns, turn, trace, files, file, health, v1, models, model, completions, aiSdkChat, agUi, memory, note, ...(mcp ? [mcp] : []), ...a2aResources, ...metadataResources, ...connectionResources]) resource.addMethod('ANY', buffered);
    this.api.root.addProxy({ defaultIntegration: buffered, anyMethod: true });

    this.contractShapedGatewayErrors(props.corsAllowOrigins, props.protectedResourceMetadata ? this.metadataChallenge() : undefined);
    this.acknowledgeFindings(props.methodOptions);
  }

  /**
   * The API's own URL with its stage, built from its id: the functions may carry it (PUBLIC_BASE_URL)
   * without depending on the deployment, which depends on their routes.
   */
  executeApiUrl(): string {
    const stack = Stack.of(this);
    return `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${STAGE_NAME}`;
  }

  /** cdk-nag (infra/app.ts runs AwsSolutionsChecks on every synth): what it flags here, and why it stays. */
  private acknowledgeFindings(methodOptions: MethodOptions): void {
    const acknowledgments = [
      { id: 'AwsSolutions::AwsSolutions-APIG2', reason: 'Every body is validated by the function, strictly (unknown fields refused), with error codes that say what to fix; a gateway validator would answer in another shape.' },
      { id: 'AwsSolutions::AwsSolutions-APIG3', reason: 'WAF is the operator\'s choice and cost: the stage is throttled (throttleRateLimit, throttleBurstLimit) and every method authenticated unless authMode=none; associate a web ACL with the stage when the API is public.' },
      {
        id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: "API Gateway's account-level logging role, which access and execution logs need; the managed policy is the one API Gateway documents.",
      },
    ];
    if (methodOptions.authorizationType !== AuthorizationType.COGNITO) {
      acknowledgments.push({ id: 'AwsSolutions::AwsSolutions-COG4', reason: 'authMode iam signs every request with SigV4 (AWS_IAM authorization); Cognito is authMode cognito. authMode none is for demos and warned of at synth.' });
    }
    if (methodOptions.authorizationType === AuthorizationType.NONE) {
      acknowledgments.push({ id: 'AwsSolutions::AwsSolutions-APIG4', reason: 'authMode none: an open API for demos, chosen explicitly and warned of at synth (mcp-agent:openApi).' });
    }
    Validations.of(this).acknowledge(...acknowledgments);
  }

  /**
   * Errors API Gateway answers itself (a missing signature or token, a denied caller, throttling)
   * never reach a function: they get the contract's `{"error": {"code", "message"}}` body here, with
   * the contract's lower_snake codes for the ones a client must handle, and the CORS header, or a
   * browser sees only an opaque network error. A gateway response cannot pick one origin of
   * several, so with a list of origins only a single origin (or all) gets the header.
   */
  private contractShapedGatewayErrors(origins: string[], unauthorizedChallenge?: string): void {
    const origin = origins.includes('*') ? '*' : origins.length === 1 ? origins[0] : undefined;
    const corsHeaders: Record<string, string> = origin === undefined ? {} : { 'Access-Control-Allow-Origin': `'${origin}'` };
    // $context.error.messageString is already a quoted JSON string.
    const body = (code: string) => ({ 'application/json': `{"error": {"code": "${code}", "message": $context.error.messageString}}` });
    for (const [name, type, code, statusCode] of GATEWAY_ERRORS) {
      const responseHeaders = type === ResponseType.UNAUTHORIZED && unauthorizedChallenge ? { ...corsHeaders, 'WWW-Authenticate': unauthorizedChallenge } : corsHeaders;
      this.api.addGatewayResponse(name, { type, responseHeaders, templates: body(code), ...(statusCode ? { statusCode } : {}) });
    }
  }

  /**
   * The 401 API Gateway's Cognito authorizer answers for a request without a valid token points an
   * MCP client at the door's metadata (MCP authorization spec). A gateway response's header cannot
   * be built from the request, so the URL is the API's own execute-api URL and stage; a client
   * without the header finds nothing at the host's root, which has no stage.
   */
  private metadataChallenge(): string {
    const stack = Stack.of(this);
    const url = `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${STAGE_NAME}/.well-known/oauth-protected-resource/mcp`;
    return `'Bearer resource_metadata="${url}"'`;
  }
}

/** [construct id, API Gateway response type, contract code, status (when not the type's own)]. */
const GATEWAY_ERRORS: Array<[string, ResponseType, string, string?]> = [
  // An unsigned request (iam) or a missing token: with every route defined, nothing else gives these.
  ['MissingAuthentication', ResponseType.MISSING_AUTHENTICATION_TOKEN, 'unauthenticated', '401'],
  ['Unauthorized', ResponseType.UNAUTHORIZED, 'unauthenticated'],
  ['AccessDenied', ResponseType.ACCESS_DENIED, 'forbidden'],
  ['InvalidSignature', ResponseType.INVALID_SIGNATURE, 'invalid_signature'],
  ['ExpiredToken', ResponseType.EXPIRED_TOKEN, 'expired_token'],
  ['Throttled', ResponseType.THROTTLED, 'throttled'],
  ['ClientErrors', ResponseType.DEFAULT_4XX, '$context.error.responseType'],
  ['ServerErrors', ResponseType.DEFAULT_5XX, '$context.error.responseType'],
];
