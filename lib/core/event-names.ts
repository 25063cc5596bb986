/**
 * The names on the event bus, shared by the worker, the announcer and the stack's rule: callers
 * send `AgentTurnRequested` (a question) or `AgentApprovalDecided` (decisions on a paused turn's
 * calls); the service answers every finished turn with `AgentTurnCompleted`, and every turn that
 * waits for approval with `AgentApprovalRequired`.
 */
export const AGENT_EVENT_SOURCE = 'mcp-agent';
export const TURN_REQUESTED = 'AgentTurnRequested';
export const APPROVAL_DECIDED = 'AgentApprovalDecided';
export const TURN_COMPLETED = 'AgentTurnCompleted';
export const APPROVAL_REQUIRED = 'AgentApprovalRequired';
