import { fileNameProblem, type FileStore } from '../../core/ports/file-store.ts';
import type { CodeFilesFor } from '../../core/ports/code-sandbox.ts';

/**
 * The conversation's files (files: true) as the code interpreter's: the code reads every file of
 * the conversation, and what it writes is kept there under the file store's rules (a text format,
 * a plain name, files.maxBytes, files.maxFiles), so file_tool, report_tool and the download routes
 * see it too. A file that breaks a rule is not kept, and the model is told why.
 */
export function codeFilesOfStore(store: FileStore, limits: { maxBytes: number; maxFiles: number }): CodeFilesFor {
  return ({ conversationId, owner }) => {
    const key = { conversationId, ...(owner ? { owner } : {}) };
    return {
      list: async () => (await store.list(key)).map((file) => file.name),
      read: async (name) => (await store.get(key, name))?.content ?? '',
      async write(name, content) {
        const problem = fileNameProblem(name);
        if (problem) throw new Error(`${name}: ${problem}`);
        if (content.byteLength > limits.maxBytes) throw new Error(`${name}: ${content.byteLength} bytes, more than files.maxBytes (${limits.maxBytes})`);
        const existing = await store.list(key);
        if (!existing.some((file) => file.name === name) && existing.length >= limits.maxFiles) throw new Error(`${name}: the conversation already has files.maxFiles (${limits.maxFiles}) files`);
        let text: string;
        try {
          text = new TextDecoder('utf-8', { fatal: true }).decode(content);
        } catch {
          throw new Error(`${name}: not UTF-8 text`);
        }
        await store.put(key, { name, description: 'written by code_interpreter', content: text });
      },
    };
  };
}
