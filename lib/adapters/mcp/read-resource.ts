/**
 * resources/read for the embedding code (a built-in read_resource tool, say), rendered as text the
 * model can read: text contents as they are, binary contents described, never their base64.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../core/errors.ts';
import type { ResourceReadOptions, ToolOutput } from '../../core/ports/tools.ts';
import type { ServerConnection } from './connect.ts';
import { describeBinaryResource, EMPTY_RESULT_TEXT } from './content.ts';
import { ToolCallError } from './errors.ts';
import { isSessionExpired } from '#mcp-remote';

export async function readServerResource(
  connection: ServerConnection,
  target: { server: string; uri: string },
  options: ResourceReadOptions,
): Promise<ToolOutput> {
  try {
    const result = await connection.client.readResource({ uri: target.uri }, { signal: options.signal, timeout: options.timeoutMs });
    const parts = result.contents.map((content) =>
      'text' in content && typeof content.text === 'string' ? content.text : describeBinaryResource(content),
    );
    return { ok: true, text: parts.length === 0 ? EMPTY_RESULT_TEXT : parts.join('\n') };
  } catch (error) {
    if (isSessionExpired(error)) throw error;
    if (options.signal.aborted) throw new ToolCallError('tool_aborted', `Reading ${target.uri} was cancelled.`, { cause: error });
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      throw new ToolCallError('tool_timeout', `Reading ${target.uri} took longer than ${options.timeoutMs} ms.`, { cause: error });
    }
    // The server answered (unknown resource, no resources capability): the model can read why.
    if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) return { ok: false, text: error.message };
    throw new ToolCallError(
      'tool_transport_failed',
      `Reading ${target.uri} got no answer: the MCP server "${target.server}" failed (${errorMessage(error)}).`,
      { cause: error },
    );
  }
}
