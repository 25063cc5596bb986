/**
 * The files feature as the agent takes it (`#files` in package.json): the extension of file_tool
 * and report_tool, and the owner's file routes. One entry, so a Lambda bundle of a configuration
 * without files leaves all of it out (infra/bundling.ts, functions/substitutes/without-files.ts).
 */
export { configuredFilesExtension } from './configured.ts';
export { filesApi } from './files-api.ts';
