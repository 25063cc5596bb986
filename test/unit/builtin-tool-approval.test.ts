/**
 * Which built-in tools wait for approval (agent.yml builtInTools.requireApproval), as tool control
 * sees them: the policy decided per tool, and the config key checked like a server's own.
 */
import { describe, expect, it } from 'vitest';
import type { BuiltinTool } from '../../lib/agent/extension-api/extension.ts';
import { builtInApproval } from '../../lib/agent/loop/tool-policy.ts';
import type { ToolPolicy } from '../../lib/config/schema.ts';
import { configFailure, parseAgentYml } from '../support/agent-yml.ts';

const builtIn = (name: string, annotations: Record<string, boolean>, changesLaterConversations = false): BuiltinTool => ({
  definition: { name, description: name, parameters: { type: 'object' }, annotations },
  ...(changesLaterConversations ? { changesLaterConversations } : {}),
  run: () => ({ ok: true, text: '' }),
});

const remember = builtIn('remember', { readOnlyHint: false, destructiveHint: false }, true);
const recall = builtIn('recall', { readOnlyHint: true });
const writeTodos = builtIn('write_todos', { readOnlyHint: true });
const ownTool = builtIn('send_report', {});
const tools = [remember, recall, writeTodos, ownTool];

const servers = (...approvals: Array<ToolPolicy['requireApproval']>) => new Map(approvals.map((requireApproval, index) => [`server${index}`, { denyTools: [], requireApproval }]));

describe('builtInApproval', () => {
  it.each([
    ['auto, no server asks', 'auto', servers('never', []), []],
    ['auto, no servers at all', 'auto', servers(), []],
    ['auto, one server asks always', 'auto', servers('never', 'always'), ['remember']],
    ['auto, one server asks for destructive tools', 'auto', servers('destructive'), ['remember']],
    ['auto, one server asks for some tools', 'auto', servers(['cancel*']), ['remember']],
    ['never, even when servers ask', 'never', servers('always'), []],
    ['always', 'always', servers(), ['remember', 'recall', 'write_todos', 'send_report']],
    ['destructive: unless read-only or additive', 'destructive', servers(), ['send_report']],
    ['patterns name the built-ins', ['rec*', 'send_report'], servers('always'), ['recall', 'send_report']],
  ] as const)('%s', (_case, setting, policies, expected) => {
    // Act
    const needsApproval = builtInApproval(setting as never, policies);

    // Assess
    expect(tools.filter(needsApproval).map((tool) => tool.definition.name)).toEqual(expected);
  });

  it('reads builtInTools.requireApproval from agent.yml: auto by default, a server’s values, and refuses others', () => {
    expect(parseAgentYml('').builtInTools).toEqual({ requireApproval: 'auto' });
    expect(parseAgentYml('builtInTools: { requireApproval: [remember] }').builtInTools).toEqual({ requireApproval: ['remember'] });
    expect(configFailure('builtInTools: { requireApproval: sometimes }')).toMatch(/builtInTools\.requireApproval/);
    expect(configFailure('builtInTools: { remember: always }')).toMatch(/builtInTools: unknown key "remember"|builtInTools.*remember/);
  });
});
