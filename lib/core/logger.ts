/** Structured logging port. Prompt and tool payloads are never logged unless a flag allows it. */
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

type Level = keyof Logger;
const LEVELS: Level[] = ['debug', 'info', 'warn', 'error'];

/** One JSON object per line on stderr (what CloudWatch and local terminals both read well). */
export function createJsonLogger(minimum: Level = 'info', write = (line: string) => process.stderr.write(line + '\n')): Logger {
  const threshold = LEVELS.indexOf(minimum);
  const log = (level: Level) => (message: string, fields?: LogFields) => {
    if (LEVELS.indexOf(level) < threshold) return;
    write(JSON.stringify({ level, time: new Date().toISOString(), message, ...fields }));
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
