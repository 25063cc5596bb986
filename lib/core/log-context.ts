import { AsyncLocalStorage } from 'node:async_hooks';
import type { LogFields, Logger } from './logger.ts';

/**
 * Fields every log line of the current unit of work carries (a turn's conversation and request ids),
 * kept per async call chain: the worker runs several turns at once in one process, so a global
 * "append keys" would mix them up.
 */
const storage = new AsyncLocalStorage<LogFields>();

export function withLogContext<T>(fields: LogFields, work: () => T): T {
  return storage.run({ ...storage.getStore(), ...fields }, work);
}

/** Runs work with no context, for long-lived resources (an MCP server process outlives its first turn). */
export function withoutLogContext<T>(work: () => T): T {
  return storage.exit(work);
}

const contextual = new WeakSet<Logger>();

/** A logger whose lines also carry the current context's fields (wrapping one twice is a no-op). */
export function contextualLogger(logger: Logger): Logger {
  if (contextual.has(logger)) return logger;
  const withContext = (fields?: LogFields): LogFields | undefined => {
    const context = storage.getStore();
    return context ? { ...context, ...fields } : fields;
  };
  const wrapped: Logger = {
    debug: (message, fields) => logger.debug(message, withContext(fields)),
    info: (message, fields) => logger.info(message, withContext(fields)),
    warn: (message, fields) => logger.warn(message, withContext(fields)),
    error: (message, fields) => logger.error(message, withContext(fields)),
  };
  contextual.add(wrapped);
  return wrapped;
}
