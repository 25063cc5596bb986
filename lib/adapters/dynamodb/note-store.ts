import { randomBytes, randomInt } from 'node:crypto';
import type { DynamoDocuments } from './documents.ts';
import { StoreError } from '../../core/errors.ts';
import { oldestFirst } from '../../core/notes.ts';
import type { AddedNote, NewNote, Note, NoteStore } from '../../core/ports/notes.ts';
import type { StoreCallOptions } from '../../core/ports/conversation-store.ts';
import { deleteItems } from './delete.ts';
import { isConditionalCheckFailed, storeUnavailable } from './errors.ts';
import { notesPartitionKey } from './keys.ts';
import { sendOptions } from './store.ts';

interface DynamoNoteStoreOptions {
  client: DynamoDocuments;
  /** The conversation table: notes live beside conversations, under keys of their own. */
  tableName: string;
}

/** Tries to take a free slot, when another request took the one chosen first. */
const ATTEMPTS = 5;

/**
 * Memory notes in the conversation table, one item per note, in the owner's own partition
 * (keys.ts, notesPartitionKey). The sort key is a slot, 1 to maxNotes: a note is written only into
 * a free slot (a conditional Put), so an owner never has more than maxNotes notes, even when two
 * conversations add one at the same moment (one of them takes another slot, or finds memory full).
 * A note's id is its slot and a random part, and a delete is conditional on the whole id: an id
 * whose note was deleted never deletes the note written later into its slot.
 *
 *   list    Query   pk                                            (one page: notes are few)
 *   add     Query, then Put (pk, free slot) if no item is there   -> else take another slot
 *   remove  Delete  (pk, slot) if its noteId is the one given      -> else "no such note"
 *   clear   Query keys, BatchWriteItem deletes
 */
export function createDynamoNoteStore(options: DynamoNoteStoreOptions): NoteStore {
  const { client, tableName } = options;

  async function items(owner: string | undefined, call: StoreCallOptions, attributes?: string): Promise<Record<string, unknown>[]> {
    const found: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      let page;
      try {
        page = await client.query({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': notesPartitionKey(owner) },
            ConsistentRead: true,
            ...(attributes ? { ProjectionExpression: attributes } : {}),
            ExclusiveStartKey: startKey,
          },
          sendOptions(call),
        );
      } catch (error) {
        throw storeUnavailable('Query', tableName, error);
      }
      found.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return found;
  }

  async function list(owner: string | undefined, call: StoreCallOptions = {}): Promise<Note[]> {
    return (await items(owner, call)).map(noteOf).sort(oldestFirst);
  }

  async function add(owner: string | undefined, note: NewNote, maxNotes: number, call: StoreCallOptions = {}): Promise<AddedNote> {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const taken = new Set((await items(owner, call, 'sk')).map((item) => Number(item.sk)));
      if (taken.size >= maxNotes) return { kind: 'full', count: taken.size };
      // A free slot exists among 1..maxNotes (fewer than maxNotes notes hold slots there); a random
      // one, so that notes added side by side seldom choose the same.
      const free = Array.from({ length: maxNotes }, (_, index) => index + 1).filter((candidate) => !taken.has(candidate));
      const slot = free[randomInt(free.length)]!;
      const stored: Note = { noteId: `${slot}-${randomBytes(5).toString('hex')}`, text: note.text, createdAt: note.createdAt, ...(note.conversationId ? { conversationId: note.conversationId } : {}) };
      try {
        await client.put({ TableName: tableName, Item: { pk: notesPartitionKey(owner), sk: slot, ...stored }, ConditionExpression: 'attribute_not_exists(pk)' },
          sendOptions(call),
        );
        return { kind: 'added', note: stored };
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw storeUnavailable('PutItem', tableName, error);
        // Another request took this slot since the Query: look again.
      }
    }
    throw new StoreError('store_unavailable', `Could not find a free slot for a note after ${ATTEMPTS} attempts: notes are being added very fast; try again.`);
  }

  async function remove(owner: string | undefined, noteId: string, call: StoreCallOptions = {}): Promise<boolean> {
    const slot = slotOf(noteId);
    if (slot === undefined) return false;
    try {
      await client.delete({
          TableName: tableName,
          Key: { pk: notesPartitionKey(owner), sk: slot },
          ConditionExpression: '#noteId = :noteId',
          ExpressionAttributeNames: { '#noteId': 'noteId' },
          ExpressionAttributeValues: { ':noteId': noteId },
        },
        sendOptions(call),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw storeUnavailable('DeleteItem', tableName, error);
    }
  }

  async function clear(owner: string | undefined, call: StoreCallOptions = {}): Promise<number> {
    const keys = await items(owner, call, 'pk, sk');
    await deleteItems(client, tableName, keys);
    return keys.length;
  }

  return { list, add, remove, clear };
}

/** `7-a3f9c20b1d` → 7; undefined for an id this store never gave out. */
function slotOf(noteId: string): number | undefined {
  const found = /^([1-9]\d{0,5})-[0-9a-f]{10}$/.exec(noteId);
  return found ? Number(found[1]) : undefined;
}

function noteOf(item: Record<string, unknown>): Note {
  return {
    noteId: String(item.noteId),
    text: String(item.text),
    createdAt: String(item.createdAt),
    ...(typeof item.conversationId === 'string' ? { conversationId: item.conversationId } : {}),
  };
}
