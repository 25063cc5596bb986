import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { LogFields, Logger } from '../../core/logger.ts';

/** The core's Logger port on Powertools Logger (structured JSON with the Lambda context keys). */
export function powertoolsLogger(logger: PowertoolsLogger): Logger {
  return {
    debug: (message: string, fields?: LogFields) => logger.debug(message, fields ?? {}),
    info: (message: string, fields?: LogFields) => logger.info(message, fields ?? {}),
    warn: (message: string, fields?: LogFields) => logger.warn(message, fields ?? {}),
    error: (message: string, fields?: LogFields) => logger.error(message, fields ?? {}),
  };
}
