import type { Logger } from '../../core/logger.ts';

/** agent.yml `files`, and what the extension needs besides. */
export interface FilesSettings {
  maxBytes: number;
  maxFiles: number;
  maxReadChars: number;
  logger: Logger;
  /** reports: true (report_tool): what its model call may be given, and may take. */
  reports?: { maxInputChars: number; modelTimeoutMs: number };
}

export const FILE_TOOL = 'file_tool';
export const REPORT_TOOL = 'report_tool';
/** The longest description a file may have (the listing in the prompt shows it). */
export const MAX_DESCRIPTION_CHARS = 300;
