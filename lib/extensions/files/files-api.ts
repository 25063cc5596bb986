import { InputError, NotFoundError } from '../../core/errors.ts';
import { fileNameProblem, type FileStore } from '../../core/ports/file-store.ts';
import type { ConversationKey, ConversationStore } from '../../core/ports/conversation-store.ts';
import type { FilesApi } from '../../agent/agent-api.ts';
import { checkConversationId } from '../../agent/turn/validate-input.ts';

/**
 * The owner's own files: the key carries the caller's identity, and the store keeps files under
 * it, so another owner's conversation of the same id has none of them (404, as its turns are).
 * The listing of a conversation that does not exist (for this owner) is 404 too, not an empty list.
 */
export function filesApi(store: FileStore | undefined, conversations: ConversationStore): FilesApi {
  const files = (): FileStore => {
    if (!store) throw new NotFoundError('files_not_enabled', 'Files are off: turn them on with `files: true` in agent.yml.');
    return store;
  };
  return {
    async listFiles(key) {
      checkConversationId(key.conversationId);
      const listed = await files().list(key);
      if (listed.length === 0 && (await conversations.readPage(key, { limit: 1 })).records.length === 0) throw conversationNotFound(key);
      return { conversationId: key.conversationId, files: listed };
    },
    async readFile(key, name) {
      checkConversationId(key.conversationId);
      const problem = fileNameProblem(name);
      if (problem) throw new InputError('invalid_file_name', `"${name}" is not a file name: ${problem}. GET /conversations/${key.conversationId}/files lists the files there are.`);
      const file = await files().get(key, name);
      if (!file) throw new NotFoundError('file_not_found', `Conversation "${key.conversationId}" has no file "${name}". GET /conversations/${key.conversationId}/files lists the files there are.`);
      return file;
    },
  };
}

const conversationNotFound = (key: ConversationKey) =>
  new NotFoundError('conversation_not_found', `There is no conversation "${key.conversationId}". Start one with POST /conversations.`);
