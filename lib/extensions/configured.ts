import type { AgentConfig } from '../config/load.ts';
import { ConfigError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { NoteStore } from '../core/ports/notes.ts';
import { ms } from '../core/time.ts';
import type { AgentExtension } from '../agent/extension-api/extension.ts';
import type { FileStore } from '../core/ports/file-store.ts';
import { configuredFilesExtension } from '#files';
import type { CodeFilesFor, CodeSandbox } from '../core/ports/code-sandbox.ts';
import { configuredCodeInterpreter } from '#code-interpreter';
import { configuredDeepSearch } from '#deep-search';
import type { ToolGateway } from '../core/ports/tools.ts';
// Through package.json `imports`, so a Lambda bundle carries only the extensions its agent.yml turns on (infra/bundling.ts).
import { historySummaryExtension } from '#history-summary';
import { memoryExtension } from '#memory-extension';
import { todoListExtension } from '#todo-list';
import { toolRoutingExtension } from './tool-routing.ts';
import { traceExtension } from './trace/extension.ts';

/** What some extensions need besides agent.yml. */
interface ExtensionServices {
  logger: Logger;
  /** Where memory notes are kept (memory: true). */
  notes?: NoteStore;
  /** Where the conversations' files are kept (files: true). */
  files?: FileStore;
  /** Where the code interpreter runs Python (codeInterpreter: true), and the conversations' files it reads and writes. */
  codeSandbox?: CodeSandbox;
  codeFiles?: CodeFilesFor;
  /** The MCP tools deep search calls (deepSearch). */
  gateway?: ToolGateway;
  now?: () => number;
}

/**
 * The extensions of every turn, in the order they run: the ones agent.yml turns on, then `own`
 * (the strategy's and the embedding code's), then the trace, innermost, so it records each model call as it
 * is finally sent, whatever the others changed.
 */
export function configuredExtensions(config: AgentConfig, services: ExtensionServices, own: readonly AgentExtension[] = []): AgentExtension[] {
  const extensions: AgentExtension[] = [];
  const routing = toolRoutingExtension(config.tools);
  if (routing) extensions.push(routing);
  if (config.todoList) extensions.push(todoListExtension());
  if (config.history.strategy === 'summarize') {
    extensions.push(historySummaryExtension({ ...config.history.summary, modelTimeoutMs: ms(config.model.timeoutSeconds), logger: services.logger }));
  }
  if (config.memory.enabled) {
    if (!services.notes) throw new ConfigError('memory is on in agent.yml, but the agent has no note store: buildAgent keeps notes in the conversation table; code that calls createAgent passes `notes` (createMemoryNoteStore() in tests)');
    extensions.push(memoryExtension(services.notes, { ...config.memory, logger: services.logger, ...(services.now ? { now: services.now } : {}) }));
  }
  const files = configuredFilesExtension(config, services);
  if (files) extensions.push(files);
  if (config.codeInterpreter.enabled) extensions.push(configuredCodeInterpreter(config, services));
  if (config.deepSearch.enabled) extensions.push(configuredDeepSearch(config, services));
  return [...extensions, ...own, traceExtension(config.trace)];
}
