import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { createFolderFileStore } from '../../lib/adapters/folder/file-store.ts';
import { createPythonSandbox } from '../../lib/adapters/python/sandbox.ts';
import { createAgent } from '../../lib/create-agent.ts';
import { CODE_WRITER_PROMPT } from '../../lib/extensions/code-interpreter/prompt.ts';
import { parseConfig } from '../../lib/config/load.ts';
import type { CodeSandbox } from '../../lib/core/ports/code-sandbox.ts';
import { historyViolations } from '../../lib/core/history.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ModelRequest } from '../../lib/core/ports/model.ts';
import { createMemoryCodeFiles } from '../../lib/testing/memory-code-files.ts';
import { createScriptedModel, textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { testGateway } from '../support/agent-fixture.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

/**
 * The code interpreter in a turn of the agent, with real Pyodide workers (one sandbox for the
 * file: each run loads an interpreter, seconds on a loaded machine) and the conversation's files
 * in memory, as a file store would give them.
 */
const YAML = ['maxRounds: 8', 'codeInterpreter: { timeoutSeconds: 3, maxMemoryMb: 64 }', 'tools: { callTimeoutSeconds: 120, maxCallSeconds: 300 }'].join('\n');
const SALES = 'region,amount\nnorth,12.5\nsouth,30\nnorth,7.5\n';
const threads = () => readdirSync('/proc/self/task').length;

let sandbox: CodeSandbox;
let threadsBefore: number;

beforeAll(async () => {
  // libuv starts its four threads on the first asynchronous file read: they are there for good.
  await readFile(import.meta.filename);
  threadsBefore = threads();
  sandbox = createPythonSandbox();
});

afterAll(async () => {
  await sandbox.close();
});

/** A code-writing reply: the program in a fenced block, as the prompt asks. */
const program = (code: string) => textReply(`\`\`\`python\n${code}\n\`\`\``);
/** The task of a code-writing request. */
const taskOf = (request: ModelRequest) => /Task:\n([\s\S]*?)\n\nFiles in the working folder/.exec(String(request.messages[1]?.content))?.[1];

function agentWith(script: ScriptedStep[]) {
  const model = createScriptedModel(script);
  const files = createMemoryCodeFiles();
  const agent = createAgent(parseConfig(YAML, { source: 'test.yml', environment: {} }), {
    model,
    gateway: testGateway(),
    store: createMemoryConversationStore(),
    logger: silentLogger,
    ownerCounters: createMemoryOwnerCounters(),
    codeSandbox: sandbox,
    codeFiles: files.filesFor,
  });
  return { agent, model, files };
}

describe('code_interpreter in a turn', () => {
  it('computes from an uploaded CSV: the code is written from the task and the file names, and its output and files reach the model and the conversation', async () => {
    // Prepare
    const TASK = 'Sum the amount column of sales.csv per region, print the totals and write them to totals.csv';
    const CODE = [
      'import csv',
      'totals = {}',
      'for row in csv.DictReader(open("sales.csv")):',
      '    totals[row["region"]] = totals.get(row["region"], 0) + float(row["amount"])',
      'for region, total in sorted(totals.items()):',
      '    print(region, total)',
      'with open("totals.csv", "w", newline="") as out:',
      '    csv.writer(out).writerows(sorted(totals.items()))',
    ].join('\n');
    const { agent, model, files } = agentWith([
      toolCallsReply([{ id: 'code_1', name: 'code_interpreter', arguments: { task: TASK } }]),
      program(CODE),
      textReply('north 20.0, south 30.0'),
    ]);
    files.files.set('sales', new Map([['sales.csv', new TextEncoder().encode(SALES)]]));
    const events: unknown[] = [];

    // Act
    const result = await agent.ask({ conversationId: 'sales', message: 'What are the sales per region?', onEvent: (event) => events.push(event) });

    // Assess: the turn, with the code-writing call counted as a round.
    expect(result).toMatchObject({ stopReason: 'completed', reply: 'north 20.0, south 30.0', rounds: 3 });
    expect(result.toolCalls).toMatchObject([{ id: 'code_1', name: 'code_interpreter', ok: true }]);
    // Assess: the code-writing call saw the task and the file names, and no tools.
    const [first, writer, last] = model.requests;
    expect(first!.tools.map((tool) => tool.name)).toContain('code_interpreter');
    expect(writer!.messages).toEqual([
      { role: 'system', content: CODE_WRITER_PROMPT },
      { role: 'user', content: `Task:\n${TASK}\n\nFiles in the working folder:\n- sales.csv` },
    ]);
    expect(writer!.tools).toEqual([]);
    // Assess: the final call saw the code, its output and the file written.
    const answer = last!.messages.at(-1)!;
    expect(answer).toMatchObject({ role: 'tool', toolCallId: 'code_1' });
    expect(answer.content).toBe(`Code that ran:\n\`\`\`python\n${CODE}\n\`\`\`\n\nOutput:\nnorth 20.0\nsouth 30.0\n\nFiles written to the conversation: totals.csv (24 bytes)`);
    expect(historyViolations(last!.messages.filter((message) => message.role !== 'system'))).toEqual([]);
    // Assess: the file is the conversation's now, and the progress streamed.
    expect(new TextDecoder().decode(files.files.get('sales')!.get('totals.csv'))).toBe('north,20.0\r\nsouth,30.0\r\n');
    const progress = events.filter((event: any) => event.type === 'extension' && event.name === 'code-interpreter').map((event: any) => event.data);
    expect(progress).toEqual([{ toolCallId: 'code_1', code: CODE }, { toolCallId: 'code_1', ok: true, durationMs: expect.any(Number), files: ['totals.csv'] }]);
  });

  it('with files on, reads the conversation\'s files from its file store and keeps there what the code writes, and tells the model of a file the store may not keep', async () => {
    // Prepare: the conversation's files in a folder store, as npm start keeps them; sales.csv uploaded.
    const root = temporaryFolder('code-files-');
    const store = createFolderFileStore({ root });
    await store.put({ conversationId: 'stored' }, { name: 'sales.csv', description: 'sales', content: SALES });
    const CODE = [
      'import csv',
      'total = sum(float(row["amount"]) for row in csv.DictReader(open("sales.csv")))',
      'print(total)',
      'open("total.txt", "w").write(str(total))',
      'open("picture.png", "wb").write(bytes([137, 80, 78, 71]))',
    ].join('\n');
    const model = createScriptedModel([toolCallsReply([{ id: 'code_1', name: 'code_interpreter', arguments: { task: 'Total the sales' } }]), program(CODE), textReply('50')]);
    const agent = createAgent(parseConfig(`${YAML}\nfiles: true`, { source: 'test.yml', environment: {} }), {
      model,
      gateway: testGateway(),
      store: createMemoryConversationStore(),
      files: store,
      logger: silentLogger,
      ownerCounters: createMemoryOwnerCounters(),
      codeSandbox: sandbox,
    });

    // Act
    const result = await agent.ask({ conversationId: 'stored', message: 'What is the total?' });

    // Assess: the code saw the stored file; total.txt is the conversation's now, the picture was refused with its reason.
    expect(result).toMatchObject({ stopReason: 'completed', reply: '50' });
    expect(String(model.requests[1]!.messages[1]!.content)).toContain('Files in the working folder:\n- sales.csv');
    const answer = String(model.requests[2]!.messages.at(-1)!.content);
    expect(answer).toContain('Output:\n50.0');
    expect(answer).toContain('Files written to the conversation: total.txt');
    expect(answer).toMatch(/Not kept: picture\.png: .+\./);
    expect(await store.get({ conversationId: 'stored' }, 'total.txt')).toMatchObject({ content: '50.0', description: 'written by code_interpreter' });
    expect((await store.list({ conversationId: 'stored' })).map((file) => file.name).sort()).toEqual(['sales.csv', 'total.txt']);
  });

  it('answers an endless loop, a memory bomb, a socket and a read of /etc/passwd with tool errors the model sees, goes on with the turn, and leaves no worker behind', async () => {
    // Prepare: four calls in one reply; each code-writing request gets the code for its task.
    const CODE: Record<string, string> = {
      'loop forever': 'while True:\n    pass',
      'use all memory': 'blocks = []\nwhile True:\n    blocks.append(bytearray(1_000_000))',
      'open a socket': 'import socket\nsocket.create_connection(("127.0.0.1", 80), timeout=1)',
      'read the password file': 'print(open("/etc/passwd").read())',
    };
    const tasks = Object.keys(CODE);
    const writer = (request: ModelRequest) => program(CODE[taskOf(request)!]!);
    const { agent, model } = agentWith([
      toolCallsReply(tasks.map((task, index) => ({ id: `code_${index}`, name: 'code_interpreter', arguments: { task } }))),
      writer, writer, writer, writer,
      textReply('None of that could be done in the sandbox.'),
    ]);

    // Act
    const result = await agent.ask({ conversationId: 'refusals', message: 'Try the four things.' });

    // Assess: each call failed as a tool result, and the turn went on to its answer.
    expect(result).toMatchObject({ stopReason: 'completed', reply: 'None of that could be done in the sandbox.', rounds: 6 });
    expect(result.toolCalls.map((call) => [call.id, call.ok])).toEqual(tasks.map((_task, index) => [`code_${index}`, false]));
    const answers = model.requests.at(-1)!.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
    expect(answers).toHaveLength(4);
    expect(answers[0]).toMatch(/Error:\nthe code did not finish within 3 s and was stopped/);
    expect(answers[1]).toMatch(/Error:\nTraceback[\s\S]*MemoryError/);
    expect(answers[2]).toMatch(/Error:\nTraceback[\s\S]*PermissionError: \[Errno 2\] Permission denied/);
    expect(answers[3]).toMatch(/Error:\nTraceback[\s\S]*FileNotFoundError: \[Errno 44\] No such file or directory: '\/etc\/passwd'/);
    // Assess: once closed, no worker thread of the sandbox is left.
    await sandbox.close();
    expect(threads()).toBe(threadsBefore);
  });
});
