import type { Logger } from '../../../core/logger.ts';

/** agent.yml `files`, and what the extension needs besides. */
export interface FilesSettings {
  maxBytes: number;
  maxFiles: number;
  maxReadChars: number;
  logger: Logger;
}

export const FILE_TOOL = 'file_tool';
/** The longest description a file may have (the listing in the prompt shows it). */
export const MAX_DESCRIPTION_CHARS = 300;
