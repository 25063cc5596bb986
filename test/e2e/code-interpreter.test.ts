import { describe, expect, it } from 'vitest';
import { CODE_WRITER_PROMPT } from '../../lib/extensions/code-interpreter/prompt.ts';
import { getJson, serversPerTest } from '../support/configured-local-server.ts';
import { postForEvents } from '../support/sse-client.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';
import { completionBodies, toolAnswers, toolNames, wireMessages, wireViolations } from '../support/wire-requests.ts';

/**
 * codeInterpreter: true through `npm start`: a real Pyodide worker runs the code the scripted model
 * writes. The local server keeps no conversation files yet, so the code sees none.
 */
describe('codeInterpreter through npm start', () => {
  const servers = serversPerTest();

  it('has the model write Python for the task in a round of its own, runs it, and gives the model the output', async () => {
    // Prepare
    const TASK = 'Compute the 20th Fibonacci number and the sum of the primes below 100, and print both.';
    const CODE = [
      'a, b = 0, 1',
      'for _ in range(20):',
      '    a, b = b, a + b',
      'print("fibonacci", a)',
      'print("primes", sum(n for n in range(2, 100) if all(n % d for d in range(2, int(n ** 0.5) + 1))))',
    ].join('\n');
    const ANSWER = 'The 20th Fibonacci number is 6765, and the primes below 100 add up to 1060.';
    const model = await servers.model([
      toolCallsReply([{ id: 'code_1', name: 'code_interpreter', arguments: { task: TASK } }]),
      textReply(`Here is the program:\n\`\`\`python\n${CODE}\n\`\`\``),
      textReply(ANSWER),
    ]);
    const local = await servers.local('codeInterpreter: { timeoutSeconds: 10 }\ntools: { callTimeoutSeconds: 120 }\nmodel: { maxRetries: 0 }\n', model);

    // Act
    const exchange = await postForEvents(`${local.server.url}/conversations/numbers/messages`, { body: { message: 'Fibonacci 20 and the primes below 100?' } });

    // Assess: the first call offers the tool.
    const bodies = completionBodies(model);
    expect(bodies).toHaveLength(3);
    expect(toolNames(bodies[0]!)).toContain('code_interpreter');
    // Assess: the code-writing call sees the task and the files (none here), without tools or the conversation.
    expect(wireMessages(bodies[1]!)).toEqual([
      { role: 'system', content: CODE_WRITER_PROMPT },
      { role: 'user', content: `Task:\n${TASK}\n\nFiles in the working folder: none.` },
    ]);
    expect(toolNames(bodies[1]!)).toEqual([]);
    // Assess: the final call sees the code and what it printed, as the answer to the call.
    expect(wireViolations(bodies[2]!)).toEqual([]);
    expect(toolAnswers(bodies[2]!).map((message) => [message.tool_call_id, message.content])).toEqual([
      ['code_1', `Code that ran:\n\`\`\`python\n${CODE}\n\`\`\`\n\nOutput:\nfibonacci 6765\nprimes 1060`],
    ]);
    // Assess: the stream and the result: three rounds, the code-writing call among them.
    const progress = exchange.events.filter((event) => event.event === 'code-interpreter').map((event) => event.data);
    expect(progress).toEqual([{ toolCallId: 'code_1', code: CODE }, { toolCallId: 'code_1', ok: true, durationMs: expect.any(Number), files: [] }]);
    const turnEnd = exchange.events.find((event) => event.event === 'turn-end')!.data as any;
    expect(turnEnd).toMatchObject({ stopReason: 'completed', reply: ANSWER, rounds: 3, toolCalls: [{ id: 'code_1', name: 'code_interpreter', ok: true }] });
    const stored = await getJson(`${local.server.url}/conversations/numbers`);
    expect(stored.body.turns[0].messages.find((message: any) => message.role === 'tool').content).toContain('fibonacci 6765');
  });
});
