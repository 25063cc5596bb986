/**
 * The MCP adapter's error: a tools/call that produced no answer from the tool (unknown name,
 * server unavailable, timeout, abort, dropped connection). The loop turns it into the tool
 * message, so the message is written for the model to read.
 */
import { AgentError } from '../../core/errors.ts';

type ToolCallErrorCode =
  | 'tool_unknown'
  | 'resource_not_allowed'
  | 'tool_server_unavailable'
  | 'tool_timeout'
  | 'tool_aborted'
  | 'tool_transport_failed';

export class ToolCallError extends AgentError {
  declare readonly code: ToolCallErrorCode;
  /** True when the tool did not answer in time. */
  readonly timeout: boolean;

  constructor(code: ToolCallErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.timeout = code === 'tool_timeout';
  }
}
