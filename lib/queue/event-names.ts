/**
 * The names on the event bus, shared by the worker, the announcer and the stack's rule: callers
 * send `AgentTurnRequested`, the service answers every finished turn with `AgentTurnCompleted`.
 */
export const AGENT_EVENT_SOURCE = 'mcp-agent';
export const TURN_REQUESTED = 'AgentTurnRequested';
export const TURN_COMPLETED = 'AgentTurnCompleted';
