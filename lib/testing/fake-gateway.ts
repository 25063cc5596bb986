import type { JsonObject } from '../core/json.ts';
import type { ToolDefinition, ToolGateway, ToolOutput, ToolServerStatus } from '../core/ports/tools.ts';

export interface FakeTool {
  definition: ToolDefinition;
  /** Receives the arguments and the call's signal; may throw or never settle until aborted. */
  run: (args: JsonObject, signal: AbortSignal) => ToolOutput | Promise<ToolOutput>;
}

/** A tool gateway over plain functions, recording every call, for tests of the loop; its server is called `fake`. */
export function createFakeGateway(tools: FakeTool[]): ToolGateway & { calls: Array<{ name: string; args: JsonObject }> } {
  const calls: Array<{ name: string; args: JsonObject }> = [];
  const byName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  return {
    calls,
    async listTools() {
      return tools.map((tool) => ({ server: 'fake', ...tool.definition }));
    },
    async callTool(name, args, options) {
      calls.push({ name, args });
      const tool = byName.get(name);
      if (!tool) throw new Error(`fake gateway: unknown tool ${name}`);
      return tool.run(args, options.signal);
    },
    async status(): Promise<ToolServerStatus[]> {
      return [{ name: 'fake', transport: 'stdio', status: 'connected', toolCount: tools.length }];
    },
    async close() {},
  };
}

/** Resolves when the signal aborts, then throws like an MCP request timeout does. */
export function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new Error('aborted'));
    signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
  });
}
