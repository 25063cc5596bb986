/**
 * reports: true (with files) through npm start, with a scripted model whose every request is
 * checked: report_tool makes one model call, counted as a round, given the task, the
 * conversation's files and the turn's tool results; the report streams as report-delta events, is
 * saved as a file of the conversation (unwrapped from its code fence), listed in the next prompt
 * and served sandboxed; and with no round left the call is refused without a model call.
 */
import { describe, expect, it } from 'vitest';
import { demoServerYml, getJson, serversPerTest } from '../support/configured-local-server.ts';
import { postForEvents } from '../support/sse-client.ts';
import { streamedAsOpenAI, textReply, toolCallsReply } from '../support/scripted-openai-server.ts';
import { completionBodies, systemPromptOf, toolAnswers, wireMessages, wireViolations } from '../support/wire-requests.ts';

const TABLE = 'city,celsius\nShanghai,24\n';
const REPORT = '<!DOCTYPE html>\n<html><head><title>Weather</title><style>body{font:16px sans-serif}</style></head><body><h1>Shanghai</h1><p>24 °C, cloudy.</p></body></html>';

describe('reports: true through npm start', () => {
  const servers = serversPerTest();

  it('writes a report with one model call from the task, the files and the tool results, streams it and saves it as a file', async () => {
    // Prepare
    const model = await servers.model([
      toolCallsReply([
        { id: 'weather', name: 'getWeather', arguments: { city: '上海' } },
        { id: 'table', name: 'file_tool', arguments: { command: 'upload', filename: 'data.csv', description: 'Temperatures', content: TABLE } },
      ]),
      toolCallsReply([{ id: 'report', name: 'report_tool', arguments: { fileType: 'html', fileName: 'weather', fileDescription: 'The weather report', task: 'Write a weather report for Shanghai.' } }]),
      streamedAsOpenAI(textReply(`\`\`\`html\n${REPORT}\n\`\`\``), { pieceLength: 16 }),
      textReply('The report is saved as weather.html.'),
    ]);
    const local = await servers.local(`files: true\nreports: true\nmodel: { maxRetries: 0 }\n${demoServerYml()}`, model);

    // Act
    const exchange = await postForEvents(`${local.server.url}/conversations/report/messages`, { body: { message: 'Report on the weather in Shanghai.' } });

    // Assess: the report's own model call: its prompt, and the material it was given.
    const bodies = completionBodies(model);
    expect(bodies).toHaveLength(4);
    for (const body of bodies) expect(wireViolations(body)).toEqual([]);
    const reportCall = bodies[2]!;
    expect(reportCall.tools ?? []).toEqual([]);
    const [system, user] = wireMessages(reportCall);
    expect(wireMessages(reportCall)).toHaveLength(2);
    expect(system).toMatchObject({ role: 'system', content: expect.stringContaining('one self-contained HTML document, starting with <!DOCTYPE html>') });
    const weather = toolAnswers(bodies[1]!).find((message) => message.tool_call_id === 'weather')!.content!;
    expect(user!.role).toBe('user');
    expect(user!.content).toContain('Task: Write a weather report for Shanghai.\n\nThe report is saved as "weather.html".');
    expect(user!.content).toContain(`### File "data.csv" (Temperatures)\n\`\`\`\n${TABLE}\n\`\`\``);
    expect(user!.content).toContain(`### Result of the tool getWeather\n\`\`\`\n${weather}\n\`\`\``);

    // Assess: the tool result the model got, and the listing of the next round.
    expect(toolAnswers(bodies[3]!).at(-1)).toMatchObject({ tool_call_id: 'report', content: `Wrote the report "weather.html" (html, ${Buffer.byteLength(REPORT)} bytes). The user can now open and download it; read it with file_tool get if you need to quote it.` });
    expect(systemPromptOf(bodies[3]!)).toContain(`- "weather.html" (${Buffer.byteLength(REPORT)} bytes): "The weather report"`);

    // Assess: streamed while written, counted as a round, saved unwrapped and served sandboxed.
    const deltas = exchange.events.filter((event) => event.event === 'report-delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((event) => (event.data as any).text).join('')).toBe(`\`\`\`html\n${REPORT}\n\`\`\``);
    expect(deltas[0]!.data).toMatchObject({ toolCallId: 'report', fileName: 'weather.html' });
    const turnEnd = exchange.events.find((event) => event.event === 'turn-end')!.data as any;
    expect(turnEnd).toMatchObject({ stopReason: 'completed', rounds: 4, toolCalls: [{ name: 'getWeather', ok: true }, { name: 'file_tool', ok: true }, { name: 'report_tool', ok: true }] });
    const file = await fetch(`${local.server.url}/conversations/report/files/weather.html`);
    expect(await file.text()).toBe(REPORT);
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; /);
    expect(file.headers.get('content-security-policy')).toMatch(/^sandbox; /);
  });

  it('counts the report as a round: with none left, the next report is refused without a model call', async () => {
    // Prepare: maxRounds 2, a reply asking for two reports (one at a time): the first takes the last round.
    const model = await servers.model([
      toolCallsReply([
        { id: 'first', name: 'report_tool', arguments: { fileType: 'markdown', fileName: 'first', task: 'Summarize.' } },
        { id: 'second', name: 'report_tool', arguments: { fileType: 'markdown', fileName: 'second', task: 'Summarize again.' } },
      ]),
      textReply('# Summary\n\nNothing yet.'),
    ]);
    const local = await servers.local('files: true\nreports: true\nmaxRounds: 2\ntools: { maxConcurrentCalls: 1 }\nmodel: { maxRetries: 0 }\n', model);

    // Act
    const exchange = await postForEvents(`${local.server.url}/conversations/bounded/messages`, { body: { message: 'Summarize twice.' } });

    // Assess: two model calls (the reply, the first report), and the turn stopped at its bound.
    expect(completionBodies(model)).toHaveLength(2);
    expect(exchange.events.find((event) => event.event === 'turn-end')!.data).toMatchObject({ stopReason: 'max_rounds', rounds: 2 });
    const stored = (await getJson(`${local.server.url}/conversations/bounded`)).body.turns[0].messages;
    expect(stored.filter((message: any) => message.role === 'tool').map((message: any) => [message.toolCallId, message.content])).toEqual([
      ['first', expect.stringMatching(new RegExp(`^Wrote the report "first.md" \\(markdown, ${Buffer.byteLength('# Summary\n\nNothing yet.')} bytes\\)`))],
      ['second', 'Error: Not written: the turn has no model rounds left for the report (maxRounds). Answer with what you have.'],
    ]);
    expect((await getJson(`${local.server.url}/conversations/bounded/files`)).body.files.map((file: any) => file.name)).toEqual(['first.md']);
  });
});
