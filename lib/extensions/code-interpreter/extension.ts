import type { CodeFilesFor, CodeSandbox, SandboxFile } from '../../core/ports/code-sandbox.ts';
import type { AgentExtension } from '../../agent/extension-api/extension.ts';
import { CODE_WRITER_PROMPT, TOOL_DESCRIPTION, TOOL_NAME, codeOf, codeRequest } from './prompt.ts';
import { resultText } from './result-text.ts';

/**
 * The code interpreter (agent.yml `codeInterpreter`), after JoyAgent-JDGenie's code_interpreter: a
 * built-in `code_interpreter({task})` tool. A call makes one model call of its own, which writes
 * Python for the task from the task and the names of the conversation's files, then runs it in the
 * sandbox with those files, and answers with the code, its output, its error and the files it wrote
 * (which are written back to the conversation's files).
 *
 *   model ─► code_interpreter({task}) ─► model writes the code (a round) ─► sandbox runs it
 *         ◄─ code + output + error + files written ◄──────────────────────────┘
 *
 * The code-writing call is a round of the turn (maxRounds, like MCP sampling) and its tokens count
 * in the turn's usage; it stops with the call (its timeout, the turn's deadline). Progress streams
 * as `code-interpreter` events: the code once written, then the outcome.
 */
interface CodeInterpreterSettings {
  /** codeInterpreter.timeoutSeconds, in ms: the longest the code may run. */
  timeoutMs: number;
  /** codeInterpreter.maxMemoryMb, in bytes. */
  maxMemoryBytes: number;
  /** model.timeoutSeconds, in ms: the most the code-writing call may take. */
  modelTimeoutMs: number;
  sandbox: CodeSandbox;
  /** The conversation's files; without them the code sees none and what it writes is not kept. */
  files?: CodeFilesFor;
}

const PARAMETERS = {
  type: 'object',
  properties: {
    task: { type: 'string', minLength: 1, description: 'What the code must do, completely: the data, the files to read or write by name, and what to print.' },
  },
  required: ['task'],
  additionalProperties: false,
};

export function codeInterpreterExtension(settings: CodeInterpreterSettings): AgentExtension {
  return {
    name: 'codeInterpreter',
    tools: [
      {
        definition: { name: TOOL_NAME, description: TOOL_DESCRIPTION, parameters: PARAMETERS, annotations: { readOnlyHint: false, destructiveHint: false } },
        async run(args, call, turn) {
          const task = String(args.task);
          const files = settings.files?.({ conversationId: turn.conversationId, owner: turn.owner });
          const names = files ? await files.list() : [];
          if (!turn.takeRound()) return { ok: false, text: 'No model round is left in this turn (maxRounds) to write the code: answer with what you have.' };
          const reply = await turn.model.complete({
            messages: [{ role: 'system', content: CODE_WRITER_PROMPT }, { role: 'user', content: codeRequest(task, names) }],
            tools: [],
            timeoutMs: Math.min(settings.modelTimeoutMs, call.timeoutMs),
            signal: call.signal,
          });
          turn.addUsage(reply.usage);
          const code = codeOf(reply.content ?? '');
          if (!code) return { ok: false, text: 'No code was written for this task. Describe the task again, more precisely.' };
          // Writing the code took time of the call's own: the run gets a fresh stretch of it.
          call.onProgress?.({ progress: 1, total: 2, message: 'code written, running it' });
          turn.emit('code-interpreter', { toolCallId: call.id, code });
          const inputs: SandboxFile[] = files ? await Promise.all(names.map(async (name) => ({ name, content: await files.read(name) }))) : [];
          const result = await settings.sandbox.runPython({ code, files: inputs, timeoutMs: settings.timeoutMs, maxMemoryBytes: settings.maxMemoryBytes, signal: call.signal });
          const saved: string[] = [];
          const refused: string[] = [];
          if (files) {
            for (const file of result.files) {
              // A file the conversation's store cannot keep (its name, size or format) costs only itself.
              await files.write(file.name, file.content).then(() => saved.push(file.name), (error: unknown) => refused.push(error instanceof Error ? error.message : String(error)));
            }
          }
          const notSaved = !files && result.files.length > 0
            ? `The code wrote ${result.files.map((file) => file.name).join(', ')}, but this conversation keeps no files: they were not kept.`
            : refused.length > 0 ? `Not kept: ${refused.join('; ')}.` : undefined;
          turn.emit('code-interpreter', { toolCallId: call.id, ok: !result.error, durationMs: Math.round(result.durationMs), files: saved });
          return { ok: !result.error, text: resultText(code, result, saved, notSaved) };
        },
      },
    ],
  };
}
