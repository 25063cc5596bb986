/**
 * The code interpreter as the agent takes it (`#code-interpreter` in package.json, with the Python
 * sandbox as `#python-sandbox`): a Lambda bundle of a configuration without it leaves it out
 * (infra/bundling.ts, functions/substitutes/without-code-interpreter.ts).
 */
import type { AgentConfig } from '../../config/load.ts';
import { ConfigError } from '../../core/errors.ts';
import type { CodeFilesFor, CodeSandbox } from '../../core/ports/code-sandbox.ts';
import type { FileStore } from '../../core/ports/file-store.ts';
import { ms } from '../../core/time.ts';
import type { AgentExtension } from '../../agent/extension-api/extension.ts';
import { codeInterpreterExtension } from './extension.ts';
import { codeFilesOfStore } from './stored-files.ts';

interface CodeInterpreterServices {
  codeSandbox?: CodeSandbox;
  codeFiles?: CodeFilesFor;
  files?: FileStore;
}
/** The code_interpreter extension agent.yml asks for, with the sandbox and the files it was given. */
export function configuredCodeInterpreter(config: AgentConfig, services: CodeInterpreterServices): AgentExtension {
  if (!services.codeSandbox) throw new ConfigError('codeInterpreter is on in agent.yml, but the agent has no Python sandbox: buildAgent makes one; code that calls createAgent passes `codeSandbox` (createPythonSandbox())');
  const { timeoutSeconds, maxMemoryMb } = config.codeInterpreter;
  return codeInterpreterExtension({
    timeoutMs: ms(timeoutSeconds),
    maxMemoryBytes: maxMemoryMb * 1024 * 1024,
    modelTimeoutMs: ms(config.model.timeoutSeconds),
    sandbox: services.codeSandbox,
    // The conversation's files, when it keeps any (files: true), unless the embedding code gives its own.
    ...(services.codeFiles ? { files: services.codeFiles } : services.files && config.files.enabled ? { files: codeFilesOfStore(services.files, config.files) } : {}),
  });
}
