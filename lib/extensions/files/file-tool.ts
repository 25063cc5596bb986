import { errorMessage } from '../../core/errors.ts';
import { fileNameProblem, utf8Bytes, type FileInfo, type FileStore } from '../../core/ports/file-store.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ToolOutput } from '../../core/ports/tools.ts';
import type { BuiltinTool, RunningCall, TurnContext } from '../../agent/extension-api/extension.ts';
import { FILE_TOOL, MAX_DESCRIPTION_CHARS, type FilesSettings } from './settings.ts';

/**
 * JoyAgent's file_tool: `upload` writes a text file of the conversation (name, description,
 * content), `get` reads one back. Every refusal (a bad name, content too large, too many files, a
 * missing file, the store down) is a tool error the model reads and can act on.
 */
export function fileTool(store: FileStore, settings: FilesSettings, listing: FilesListing): BuiltinTool {
  return {
    definition: {
      name: FILE_TOOL,
      description: `Upload (write) or get (read) a file of this conversation.
- upload: saves "content" as the file "filename" with a short "description" of what it holds; a file of the same name is replaced. At most ${settings.maxBytes} bytes a file and ${settings.maxFiles} files.
- get: returns the content of the file "filename" (at most ${settings.maxReadChars} characters; a longer file is cut, and says so).
Only text formats: the file name must end in .txt, .md, .csv, .html, .json or another text extension. A file name is a plain name such as "report.md": no folders.`,
      parameters: {
        type: 'object',
        properties: {
          command: { type: 'string', enum: ['upload', 'get'], description: 'upload: write the file; get: read it.' },
          filename: { type: 'string', minLength: 1, description: 'The file name with its extension, e.g. "weather-report.md".' },
          description: { type: 'string', maxLength: MAX_DESCRIPTION_CHARS, description: 'upload: what the file holds, in one sentence.' },
          content: { type: 'string', description: 'upload: the whole text of the file.' },
        },
        required: ['command', 'filename'],
        additionalProperties: false,
      },
      // It writes only this conversation's own files.
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    run: (args: JsonObject, call: RunningCall, turn: TurnContext) => (args.command === 'upload' ? upload(args, call, turn) : get(args, call, turn)),
  };

  async function upload(args: JsonObject, call: RunningCall, turn: TurnContext): Promise<ToolOutput> {
    const name = String(args.filename);
    const problem = fileNameProblem(name);
    if (problem) return { ok: false, text: `Not uploaded: ${JSON.stringify(name)} is not a file name you can use: ${problem}. Choose another name and upload again.` };
    if (typeof args.content !== 'string') return { ok: false, text: 'Not uploaded: "content" is missing. Call upload with the whole text of the file in "content".' };
    const bytes = utf8Bytes(args.content);
    if (bytes > settings.maxBytes) {
      return { ok: false, text: `Not uploaded: the content has ${bytes} bytes, and a file may have at most ${settings.maxBytes}. Write it shorter, or split it into several files.` };
    }
    const files = listing.files(turn);
    if (files && files.length >= settings.maxFiles && !files.some((file) => file.name === name)) {
      return { ok: false, text: `Not uploaded: the conversation already has ${files.length} files, the most it may have. Replace one of them (upload under its name) instead.` };
    }
    let saved: FileInfo;
    try {
      saved = await store.put(key(turn), { name, description: typeof args.description === 'string' ? args.description.trim() : '', content: args.content }, { signal: call.signal });
    } catch (error) {
      return { ok: false, text: `Not uploaded: the file store is unavailable right now (${errorMessage(error)}). Try again later, or go on without the file.` };
    }
    const replaced = listing.saved(turn, saved);
    return { ok: true, text: `${replaced ? 'Replaced' : 'Uploaded'} ${JSON.stringify(name)} (${saved.bytes} bytes). The user can now open and download it.` };
  }

  async function get(args: JsonObject, call: RunningCall, turn: TurnContext): Promise<ToolOutput> {
    const name = String(args.filename);
    const problem = fileNameProblem(name);
    if (problem) return { ok: false, text: `Cannot get ${JSON.stringify(name)}: ${problem}.` };
    let file;
    try {
      file = await store.get(key(turn), name, { signal: call.signal });
    } catch (error) {
      return { ok: false, text: `Cannot get ${JSON.stringify(name)}: the file store is unavailable right now (${errorMessage(error)}). Try again later.` };
    }
    if (!file) {
      const names = (listing.files(turn) ?? []).map((known) => JSON.stringify(known.name));
      return { ok: false, text: `There is no file ${JSON.stringify(name)} in this conversation. ${names.length > 0 ? `Its files: ${names.join(', ')}.` : 'It has no files yet.'}` };
    }
    return { ok: true, text: truncated(file.content, settings.maxReadChars) };
  }
}

/** A long file cut for the model, saying how much it was given (by whole characters, never half of one). */
function truncated(content: string, maxChars: number): string {
  const characters = [...content];
  if (characters.length <= maxChars) return content;
  return `${characters.slice(0, maxChars).join('')}\n…[truncated: the file has ${characters.length} characters, the first ${maxChars} are shown]`;
}

const key = (turn: TurnContext) => ({ conversationId: turn.conversationId, ...(turn.owner === undefined ? {} : { owner: turn.owner }) });

/** The turn's view of the conversation's files (read at its start, kept up to date by its uploads). */
export interface FilesListing {
  /** The files, or undefined when they could not be read. */
  files(turn: TurnContext): readonly FileInfo[] | undefined;
  /** Records a file just written; true when it replaced one. */
  saved(turn: TurnContext, file: FileInfo): boolean;
}
