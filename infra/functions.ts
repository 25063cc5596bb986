import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { ENV } from '../lib/config/environment.ts';
import { AgentFunction } from './agent-function.ts';
import { BUNDLED_AGENT_CONFIG, BUNDLED_DEMO_SERVER, FUNCTION_ENTRIES, LAMBDA_TASK_ROOT } from './bundling.ts';

/**
 * Memory and time per function.
 * - stream and worker run agent turns: 15 minutes, Lambda's maximum and the streaming limit, so a
 *   long tool loop finishes (the loop itself stops before the deadline and stores what it has).
 *   1024 MB: Lambda gives CPU in proportion to memory, and a turn parses and validates JSON,
 *   gzips the stored turn and runs the stdio MCP servers as child Node processes beside the
 *   function; 1024 MB keeps cold starts (loading a ~2 MB bundle) near a second while costing
 *   little, as the time is mostly spent waiting on the model.
 * - healthAndFallbacks serves GET /health and the 404/405 answers of every other route: health lists the MCP servers' tools once per container, so 512 MB
 *   suffices. 29 s matches API Gateway's buffered integration timeout: the function never works
 *   on after the client got its 504.
 */
export const FUNCTION_SIZING = {
  stream: { memorySize: 1024, timeout: Duration.minutes(15) },
  worker: { memorySize: 1024, timeout: Duration.minutes(15) },
  healthAndFallbacks: { memorySize: 512, timeout: Duration.seconds(29) },
} as const;

/** Powertools names every log line's service and the metrics' namespace. */
export const POWERTOOLS_ENVIRONMENT = {
  [ENV.serviceName]: 'mcp-agent',
  [ENV.metricsNamespace]: 'McpAgent',
};

export interface AgentFunctionsProps {
  /** Set on every function (auth mode, model settings, where the model API key lives). */
  environment: Record<string, string>;
  /** Origins allowed to read API responses: the API functions answer with Access-Control-Allow-Origin. */
  corsAllowOrigins: string[];
  tableName: string;
  bundling: BundlingOptions;
  /** The bundles carry the demo MCP server (agent.yml starts it): its environment names the file. */
  demoServer: boolean;
  removalPolicy: RemovalPolicy;
}

/** The three Lambda entries of the service, each with only the environment it reads. */
export class AgentFunctions extends Construct {
  readonly stream: AgentFunction;
  readonly worker: AgentFunction;
  /** GET /health, and the contract's 404/405 for every route and method no other function serves. */
  readonly healthAndFallbacks: AgentFunction;

  constructor(scope: Construct, id: string, props: AgentFunctionsProps) {
    super(scope, id);
    const shared = {
      bundling: props.bundling,
      removalPolicy: props.removalPolicy,
    };
    const environment = {
      ...POWERTOOLS_ENVIRONMENT,
      // The bundle's own agent.yml; its demo server entry is relative to agent.yml's folder.
      [ENV.agentConfig]: `${LAMBDA_TASK_ROOT}/${BUNDLED_AGENT_CONFIG}`,
      ...(props.demoServer ? { [ENV.demoMcpServer]: BUNDLED_DEMO_SERVER } : {}),
      ...props.environment,
    };
    this.stream = new AgentFunction(this, 'Stream', {
      ...shared,
      ...FUNCTION_SIZING.stream,
      entry: FUNCTION_ENTRIES.stream,
      description: 'MCP agent: the conversation routes and /v1 (OpenAI-compatible), streamed (SSE or JSON)',
      environment: { ...environment, [ENV.conversationsTable]: props.tableName, [ENV.corsAllowOrigins]: props.corsAllowOrigins.join(',') },
    });
    this.worker = new AgentFunction(this, 'Worker', {
      ...shared,
      ...FUNCTION_SIZING.worker,
      entry: FUNCTION_ENTRIES.worker,
      description: 'MCP agent: asynchronous turns from SQS, EventBridge and direct invokes',
      environment: { ...environment, [ENV.conversationsTable]: props.tableName },
    });
    this.healthAndFallbacks = new AgentFunction(this, 'HealthAndFallbacks', {
      ...shared,
      ...FUNCTION_SIZING.healthAndFallbacks,
      entry: FUNCTION_ENTRIES.healthAndFallbacks,
      description: 'MCP agent: GET /health, and 404/405 for every other route and method',
      environment: { ...environment, [ENV.corsAllowOrigins]: props.corsAllowOrigins.join(',') },
    });
  }
}
