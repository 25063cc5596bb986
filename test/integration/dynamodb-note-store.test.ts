/**
 * Memory notes in the conversation table (dynalite, or DYNAMODB_ENDPOINT): the NoteStore contract,
 * and the keys that keep notes and conversations from ever meeting.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationPartitionKey, notesPartitionKey } from '../../lib/adapters/dynamodb/keys.ts';
import { createDynamoNoteStore } from '../../lib/adapters/dynamodb/note-store.ts';
import { createDynamoConversationStore } from '../../lib/adapters/dynamodb/store.ts';
import { type LocalTable, startLocalTable } from '../support/dynalite.ts';
import { noteStoreContract } from '../support/note-store-contract.ts';
import { storeTurn } from '../support/store-contract.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable();
});
afterAll(async () => {
  await table?.close();
});

const createStore = () => createDynamoNoteStore({ client: table.dynamo, tableName: table.tableName });

describe('createDynamoNoteStore on dynalite', () => {
  noteStoreContract(createStore);

  it('keeps an owner’s notes in a partition of their own, which no conversation id can name', async () => {
    // Prepare: a conversation whose id is as close to the notes' key as an id may come.
    const owner = `owner-${randomUUID()}`;
    const notes = createStore();
    const conversations = createDynamoConversationStore({ client: table.dynamo, tableName: table.tableName, ttlDays: 30 });
    const conversation = { conversationId: 'memory', owner };
    await storeTurn(conversations, conversation, 1);

    // Act
    const added = await notes.add(owner, { text: 'Prefers tea.', createdAt: new Date().toISOString() }, 5);

    // Assess: the item sits under the notes' key, in the slot its id names, and the conversation is untouched.
    if (added.kind !== 'added') throw new Error('not added');
    const slot = Number(added.note.noteId.split('-')[0]);
    expect(slot).toBeGreaterThanOrEqual(1);
    expect(slot).toBeLessThanOrEqual(5);
    const item = await table.documentClient.send(new GetCommand({ TableName: table.tableName, Key: { pk: notesPartitionKey(owner), sk: slot }, ConsistentRead: true }));
    expect(item.Item).toMatchObject({ pk: `${owner.replaceAll('-', '%2D')}#memory#notes`, text: 'Prefers tea.' });
    expect(notesPartitionKey(owner)).not.toBe(conversationPartitionKey(conversation));
    expect(notesPartitionKey(undefined)).toBe('-#memory#notes');
    expect((await conversations.readAll(conversation)).map((record) => record.turn)).toEqual([1]);

    // Deleting the conversation leaves the notes; clearing the notes leaves conversations.
    await notes.clear(owner);
    expect((await conversations.readAll(conversation)).map((record) => record.turn)).toEqual([1]);
    await notes.add(owner, { text: 'Prefers coffee.', createdAt: new Date().toISOString() }, 5);
    await conversations.deleteConversation(conversation);
    expect((await notes.list(owner)).map((note) => note.text)).toEqual(['Prefers coffee.']);
  });

  it('finds another slot when the one it chose was taken meanwhile, and never reuses an id', async () => {
    const owner = `owner-${randomUUID()}`;
    const store = createStore();
    const ids = new Set<string>();
    for (let round = 0; round < 3; round++) {
      const added = await Promise.all([1, 2, 3].map((index) => store.add(owner, { text: `note ${round}.${index}`, createdAt: new Date().toISOString() }, 3)));
      for (const outcome of added) if (outcome.kind === 'added') ids.add(outcome.note.noteId);
      expect(added.every((outcome) => outcome.kind === 'added')).toBe(true);
      expect(await store.clear(owner)).toBe(3);
    }
    expect(ids.size).toBe(9);
  });
});
