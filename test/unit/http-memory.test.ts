import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { describe, expect, it } from 'vitest';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { createMemoryNoteStore } from '../../lib/adapters/memory/note-store.ts';
import { createAgent } from '../../lib/create-agent.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { createHttpHandler } from '../../lib/front-doors/handlers.ts';
import { createScriptedModel } from '../../lib/testing/scripted-model.ts';
import { testGateway } from '../support/agent-fixture.ts';

function http(yaml = 'memory: true') {
  const notes = createMemoryNoteStore();
  const agent = createAgent(parseConfig(yaml, { source: 'test.yml', environment: {} }), { ownerCounters: createMemoryOwnerCounters(), model: createScriptedModel([]), gateway: testGateway(), store: createMemoryConversationStore(), notes, logger: silentLogger });
  const handle = createHttpHandler({ agent, logger: silentLogger, maxBodyBytes: 64 * 1024 });
  const send = async (method: string, path: string, options: { owner?: string; query?: Record<string, string> } = {}) => {
    const response = await handle({ method, path, headers: {}, body: undefined, ...(options.owner ? { owner: options.owner } : {}), ...(options.query ? { query: options.query } : {}) });
    return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined };
  };
  const note = (owner: string | undefined, text: string, second: number) => notes.add(owner, { text, createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, second)).toISOString() }, 100);
  return { send, note, notes };
}

describe('HTTP memory routes', () => {
  it('lists the caller’s own notes page by page, oldest first', async () => {
    const { send, note } = http();
    for (const second of [1, 2, 3]) await note('alice', `alice ${second}`, second);
    await note('bob', 'bob 1', 1);

    const first = await send('GET', '/memory', { owner: 'alice', query: { limit: '2' } });
    const second = await send('GET', '/memory', { owner: 'alice', query: { limit: '2', nextToken: first.body.nextToken } });

    expect(first).toMatchObject({ status: 200, body: { count: 3, maxNotes: 100, notes: [{ text: 'alice 1', noteId: expect.any(String), createdAt: '2025-01-01T00:00:01.000Z' }, { text: 'alice 2' }] } });
    expect(second.body).toEqual({ count: 3, maxNotes: 100, notes: [expect.objectContaining({ text: 'alice 3' })] });
    expect((await send('GET', '/memory', { owner: 'bob' })).body.notes.map((item: { text: string }) => item.text)).toEqual(['bob 1']);
    expect((await send('GET', '/memory')).body).toEqual({ count: 0, maxNotes: 100, notes: [] });
  });

  it('deletes one note with 204, 404 for a note that is not the caller’s, and all of them with a count', async () => {
    const { send, note, notes } = http();
    const kept = await note('alice', 'kept', 1);
    const gone = await note('alice', 'gone', 2);
    const bobs = await note('bob', 'bob’s', 3);
    if (kept.kind !== 'added' || gone.kind !== 'added' || bobs.kind !== 'added') throw new Error('not added');

    expect((await send('DELETE', `/memory/${gone.note.noteId}`, { owner: 'alice' })).status).toBe(204);
    expect(await send('DELETE', `/memory/${gone.note.noteId}`, { owner: 'alice' })).toMatchObject({ status: 404, body: { error: { code: 'note_not_found' } } });
    expect(await send('DELETE', `/memory/${bobs.note.noteId}`, { owner: 'alice' })).toMatchObject({ status: 404, body: { error: { code: 'note_not_found' } } });
    expect(await send('DELETE', '/memory/not.an.id', { owner: 'alice' })).toMatchObject({ status: 400, body: { error: { code: 'invalid_note_id' } } });
    expect(await send('DELETE', '/memory/%E0%A4%A', { owner: 'alice' })).toMatchObject({ status: 400, body: { error: { code: 'invalid_note_id' } } });
    expect(await send('DELETE', '/memory', { owner: 'alice' })).toEqual({ status: 200, headers: expect.any(Object), body: { deleted: 1 } });
    expect(await notes.list('alice')).toEqual([]);
    expect(await notes.list('bob')).toHaveLength(1);
  });

  it('answers bad queries, other methods and a memory that is off with the contract’s errors', async () => {
    const { send } = http();
    expect(await send('GET', '/memory', { query: { limt: '2' } })).toMatchObject({ status: 400, body: { error: { code: 'unknown_query_parameter', message: expect.stringMatching(/GET \/memory takes limit and nextToken/) } } });
    expect(await send('GET', '/memory', { query: { nextToken: 'x' } })).toMatchObject({ status: 400, body: { error: { code: 'invalid_page_token' } } });
    expect(await send('POST', '/memory')).toMatchObject({ status: 405, headers: { allow: 'GET, DELETE' } });
    expect(await send('GET', '/memory/abc')).toMatchObject({ status: 405, headers: { allow: 'DELETE' } });
    expect(await http('maxRounds: 2').send('GET', '/memory')).toMatchObject({ status: 404, body: { error: { code: 'memory_not_enabled', message: expect.stringMatching(/memory: true/) } } });
  });
});
