import { withDeadline } from '../../core/deadline.ts';
import { errorMessage } from '../../core/errors.ts';
import type { FileInfo, FileStore } from '../../core/ports/file-store.ts';
import type { AgentExtension, TurnContext } from '../../agent/extension-api/extension.ts';
import { fileTool, type FilesListing } from './file-tool.ts';
import { filesSection } from './listing.ts';
import type { ToolResultMaterial } from './report-materials.ts';
import { reportTool } from './report-tool.ts';
import { FILE_TOOL, REPORT_TOOL, type FilesSettings } from './settings.ts';

/**
 * The files of a conversation (agent.yml `files`), after JoyAgent's file_tool: a built-in tool to
 * upload and get text files, kept per conversation in the FileStore (S3 deployed, the data folder
 * locally), and a "Files" section of the system prompt, every model call, listing them. The list
 * is read once when a turn starts (one store call) and kept up to date by the turn's own uploads;
 * each upload is streamed as a `files` event with the new list, and the result of a turn that
 * uploaded carries it (`files`).
 */
export function filesExtension(store: FileStore, settings: FilesSettings): AgentExtension {
  const listing: FilesListing = {
    files: (turn) => turn.scratch.files as FileInfo[] | undefined,
    saved(turn, file) {
      const files = (turn.scratch.files as FileInfo[] | undefined) ?? [];
      const replaced = files.some((known) => known.name === file.name);
      turn.scratch.files = [...files.filter((known) => known.name !== file.name), file].sort((left, right) => (left.name < right.name ? -1 : 1));
      turn.scratch.changed = true;
      turn.emit('files', { files: turn.scratch.files });
      return replaced;
    },
  };
  return {
    name: 'files',
    tools: [fileTool(store, settings, listing), ...(settings.reports ? [reportTool(store, { ...settings, ...settings.reports }, listing)] : [])],
    // With reports on, this turn's tool results are kept for report_tool (the earlier turns' are in its history).
    ...(settings.reports
      ? {
          async aroundToolCall(call, next, turn) {
            const output = await next();
            if (output.ok && call.name !== FILE_TOOL && call.name !== REPORT_TOOL) turn.scratch.results = [...((turn.scratch.results as ToolResultMaterial[] | undefined) ?? []), { name: call.name, text: output.text }];
            return output;
          },
        }
      : {}),
    async turnStart(turn: TurnContext) {
      try {
        turn.scratch.files = await withDeadline(Math.max(1, turn.timeLeftMs()), (signal) => store.list({ conversationId: turn.conversationId, ...(turn.owner === undefined ? {} : { owner: turn.owner }) }, { signal }));
      } catch (error) {
        // The list is a help, not the turn: it goes on without it (get still reads a file by name).
        settings.logger.warn('the conversation\'s files could not be listed: this turn is sent without the list', { conversationId: turn.conversationId, turn: turn.turn, error: errorMessage(error) });
      }
    },
    beforeModelCall: (request, turn) => ({ ...request, systemPrompt: `${request.systemPrompt}\n\n${filesSection(listing.files(turn), settings.maxFiles)}` }),
    // Only a turn that wrote files carries the list: it is stored with the turn.
    turnEnd: (_result, turn) => (turn.scratch.changed ? { files: listing.files(turn) } : {}),
  };
}
