/**
 * A call to a per-user server (auth.mode: per-user) for an owner who has not connected that
 * account: the gateway throws ConnectionRequired with the provider's consent URL, and this turns it
 * into the pause servers' URL-mode elicitations already use (call-input.ts): the call waits,
 * unanswered, with `mode: "url"`, the URL and a message asking the user to connect; the turn is
 * stored paused and nothing waits in a process. When the owner answers on the approvals route:
 *
 *   accept            the call runs again, now with their token (or pauses again with a new URL
 *                     when they did not in fact connect)
 *   decline / cancel  the model is told the user did not connect
 */
import type { AgentExtension } from '../../agent/extension-api/extension.ts';
import { AwaitingInput } from '../../agent/loop/call-input.ts';
import { URL_ELICITATION_FORM } from '../../core/ports/tools.ts';
import { ConnectionRequired } from '../../core/ports/user-connections.ts';

export function connectOnCallExtension(perUserServers: ReadonlySet<string>): AgentExtension {
  return {
    name: 'perUserConnections',
    async aroundToolCall(call, next) {
      if (call.server === undefined || !perUserServers.has(call.server)) return next();
      const answer = call.input?.kind === 'elicitation' ? call.input.result : undefined;
      if (answer && answer.action !== 'accept') {
        return { ok: false, text: `Tool "${call.name}" did not run: the user did not connect their ${call.server} account (they ${answer.action === 'decline' ? 'declined' : 'cancelled'}). Do not retry it unless they ask to connect.` };
      }
      try {
        return await next();
      } catch (error) {
        if (!(error instanceof ConnectionRequired)) throw error;
        throw new AwaitingInput({
          kind: 'elicitation',
          server: error.server,
          request: { message: error.message, requestedSchema: URL_ELICITATION_FORM, mode: 'url', url: error.url, elicitationId: `connect-${error.server}` },
        });
      }
    },
  };
}
