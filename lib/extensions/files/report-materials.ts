import type { FileInfo, FileStore } from '../../core/ports/file-store.ts';
import type { ConversationKey, StoreCallOptions } from '../../core/ports/conversation-store.ts';

/** A tool result the report may draw on. */
export interface ToolResultMaterial {
  name: string;
  text: string;
}

/**
 * What the report's model call is given besides the task: the conversation's files (read whole)
 * and its tool results, newest first until `maxChars` is spent (a piece that does not fit is cut,
 * and says so), each quoted under its own heading so the model can tell them apart and cite them.
 */
export async function reportMaterials(
  store: FileStore,
  key: ConversationKey,
  input: { files: readonly FileInfo[]; results: readonly ToolResultMaterial[]; maxChars: number; exclude: string },
  options: StoreCallOptions,
): Promise<string> {
  let left = input.maxChars;
  const take = (text: string): string => {
    const shown = text.length <= left ? text : `${text.slice(0, Math.max(0, left))}\n…[cut: ${text.length - Math.max(0, left)} more characters not given]`;
    left -= Math.min(text.length, Math.max(0, left));
    return shown;
  };
  const sections: string[] = [];
  const files = [...input.files].filter((file) => file.name !== input.exclude).sort((left, right) => right.updatedAt.localeCompare(left.updatedAt));
  for (const info of files) {
    if (left <= 0) break;
    const file = await store.get(key, info.name, options);
    if (file) sections.push(`### File ${JSON.stringify(file.name)}${file.description ? ` (${file.description})` : ''}\n${fence(take(file.content))}`);
  }
  for (const result of [...input.results].reverse()) {
    if (left <= 0) break;
    sections.push(`### Result of the tool ${result.name}\n${fence(take(result.text))}`);
  }
  if (sections.length === 0) return 'The conversation has no files or tool results yet: write from the task alone.';
  const omitted = left <= 0 ? '\n\n(Older material did not fit and is left out.)' : '';
  return `${sections.join('\n\n')}${omitted}`;
}

/** A fence longer than any run of backticks in the text, so no material can close it early. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}\n${text}\n${marks}`;
}
