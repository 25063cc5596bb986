import type { AgentConfig } from '../../config/load.ts';
import { ConfigError } from '../../core/errors.ts';
import type { FileStore } from '../../core/ports/file-store.ts';
import type { Logger } from '../../core/logger.ts';
import { ms } from '../../core/time.ts';
import type { AgentExtension } from '../../agent/extension-api/extension.ts';
import { filesExtension } from './extension.ts';

/** The files extension agent.yml asks for (files, reports), or none; a configuration it cannot serve fails the start. */
export function configuredFilesExtension(config: AgentConfig, services: { files?: FileStore; logger: Logger }): AgentExtension | undefined {
  if (!config.files.enabled) {
    if (config.reports.enabled) throw new ConfigError('reports is on in agent.yml, but files is off: report_tool saves each report as a file of the conversation; turn files on too (files: true)');
    return undefined;
  }
  if (!services.files) throw new ConfigError('files is on in agent.yml, but the agent has no file store: buildAgent keeps files in S3 (FILES_BUCKET) or under the local data folder; code that calls createAgent passes `files` (createFolderFileStore)');
  const reports = config.reports.enabled ? { reports: { maxInputChars: config.reports.maxInputChars, modelTimeoutMs: ms(config.model.timeoutSeconds) } } : {};
  return filesExtension(services.files, { ...config.files, logger: services.logger, ...reports });
}
