/**
 * How a stdio server's process is started, in one place: the SDK's transport (connect.ts) and a
 * process started while a function loads (early-start.ts) must start the very same one.
 */
import type { StdioServerParameters } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpServerSpec } from './types.ts';

export type StdioServerSpec = Extract<McpServerSpec, { type: 'stdio' }>;

/**
 * The variables a server inherits from the service (the rest of its environment is its `env`):
 * the MCP SDK's own list and rule (getDefaultEnvironment, on Linux), written out so that reading
 * it does not evaluate the SDK's protocol schemas; test/unit/early-start.test.ts holds the two
 * equal.
 */
const INHERITED = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

export function inheritedEnvironment(environment: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = environment[name];
    // A shell function exported as a variable is never passed on.
    if (value !== undefined && !value.startsWith('()')) inherited[name] = value;
  }
  return inherited;
}

export function stdioServerParameters(spec: StdioServerSpec): StdioServerParameters {
  return {
    // `node` means the service's own runtime: the PATH node of the host may be older.
    command: spec.command === 'node' ? process.execPath : spec.command,
    args: spec.args,
    env: { ...inheritedEnvironment(), ...spec.env },
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    // stdout carries the protocol; stderr goes to the debug log, never to our stdout.
    stderr: 'pipe',
  };
}
