import type { CodeFiles, CodeFilesFor } from '../core/ports/code-sandbox.ts';

/**
 * Each conversation's files for the code interpreter, in this process's memory: for tests and
 * embedding code until a file store is given. `files` is the map itself, to put files in
 * (an upload) and look at what the code wrote, keyed by conversation id.
 */
export function createMemoryCodeFiles(): { filesFor: CodeFilesFor; files: Map<string, Map<string, Uint8Array>> } {
  const files = new Map<string, Map<string, Uint8Array>>();
  const of = (conversationId: string) => {
    let conversation = files.get(conversationId);
    if (!conversation) files.set(conversationId, (conversation = new Map()));
    return conversation;
  };
  const filesFor: CodeFilesFor = ({ conversationId }): CodeFiles => ({
    list: async () => [...of(conversationId).keys()].sort(),
    read: async (name) => {
      const content = of(conversationId).get(name);
      if (!content) throw new Error(`no file named ${name} in this conversation`);
      return content;
    },
    write: async (name, content) => {
      of(conversationId).set(name, content);
    },
  });
  return { filesFor, files };
}
