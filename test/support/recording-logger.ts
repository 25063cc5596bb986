import type { LogFields, Logger } from '../../lib/core/logger.ts';

export interface LogEntry {
  level: keyof Logger;
  message: string;
  /** Absent when the line was logged without fields. */
  fields?: LogFields;
}

/** A logger that keeps every line, in order, for a test to read. */
export function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const record = (level: keyof Logger) => (message: string, fields?: LogFields) => {
    entries.push(fields === undefined ? { level, message } : { level, message, fields });
  };
  return { entries, debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}
