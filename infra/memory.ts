import { Annotations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { agentFile, switchedOn } from './agent-file.ts';
import type { AuthMode } from './settings.ts';

/**
 * Whether an agent.yml turns memory on, read as written (`memory: true`, or settings). A `${VAR}`
 * counts as on: the synth cannot know, and a warning too many is cheaper than one missed.
 */
export function memoryIsOn(agentConfigFile: string): boolean {
  return switchedOn(agentFile(agentConfigFile).memory);
}

/** Without authentication there is no owner: every caller shares one memory, listed by GET /memory. */
export function warnOfSharedMemory(scope: Construct, authMode: AuthMode, agentConfigFile: string): void {
  if (authMode !== 'none' || !memoryIsOn(agentConfigFile)) return;
  Annotations.of(scope).addWarningV2('mcp-agent:sharedMemory', 'authMode=none with memory on: callers have no owner, so they all share one memory, and anyone who finds the API URL can read its notes (GET /memory) and delete them.');
}
