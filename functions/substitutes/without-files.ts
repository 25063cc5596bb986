/**
 * Stands in for the files feature (`#files`: lib/extensions/files/feature.ts, and
 * `#file-stores`: lib/configured-file-store.ts) in the Lambda bundles of a configuration without
 * files (infra/bundling.ts, functionSubstitutes): file_tool, report_tool, the stores and the S3
 * client would be dead weight on every cold start. The file routes answer files_not_enabled, as
 * they do with files off; a function that finds files on anyway fails its cold start, saying why.
 */
import type { AgentExtension } from '../../lib/agent/extension-api/extension.ts';
import type { FilesApi } from '../../lib/agent/agent-api.ts';
import type { AgentConfig } from '../../lib/config/load.ts';
import { NotFoundError } from '../../lib/core/errors.ts';
import type { FileStore } from '../../lib/core/ports/file-store.ts';

const NOT_BUNDLED = 'bundled without files: deploy again with files on';

export function configuredFilesExtension(config: AgentConfig): AgentExtension | undefined {
  if (config.files.enabled || config.reports.enabled) throw new Error(NOT_BUNDLED);
  return undefined;
}

export function configuredFileStore(): FileStore {
  throw new Error(NOT_BUNDLED);
}

export function filesApi(): FilesApi {
  const off = () => Promise.reject(new NotFoundError('files_not_enabled', 'Files are off (agent.yml files).'));
  return { listFiles: off, readFile: off };
}
