/**
 * What every NoteStore must do, run against each adapter (in memory, DynamoDB on dynalite): the
 * same rules, so code tested on one behaves the same on the other.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NoteStore } from '../../lib/core/ports/notes.ts';

const at = (second: number) => new Date(Date.UTC(2025, 0, 1, 12, 0, second)).toISOString();
const note = (text: string, second = 0, conversationId?: string) => ({ text, createdAt: at(second), ...(conversationId ? { conversationId } : {}) });
/** A fresh owner per test: the DynamoDB table is shared by the file's tests. */
const newOwner = () => `owner-${randomUUID()}`;

export function noteStoreContract(createStore: () => NoteStore): void {
  describe('the NoteStore contract', () => {
    it('lists no notes for an owner who has none', async () => {
      expect(await createStore().list(newOwner())).toEqual([]);
    });

    it('adds notes and lists them oldest first, with their ids and conversations', async () => {
      // Prepare
      const store = createStore();
      const owner = newOwner();

      // Act
      const later = await store.add(owner, note('Prefers Celsius.', 2, 'c-2'), 10);
      const earlier = await store.add(owner, note('Lives in Shanghai.', 1), 10);

      // Assess
      expect(later).toMatchObject({ kind: 'added', note: { text: 'Prefers Celsius.', createdAt: at(2), conversationId: 'c-2' } });
      expect(earlier).toMatchObject({ kind: 'added', note: { text: 'Lives in Shanghai.' } });
      const listed = await store.list(owner);
      expect(listed.map((item) => item.text)).toEqual(['Lives in Shanghai.', 'Prefers Celsius.']);
      expect(listed[0]).not.toHaveProperty('conversationId');
      expect(new Set(listed.map((item) => item.noteId)).size).toBe(2);
      for (const item of listed) expect(item.noteId).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    });

    it('keeps each owner’s notes apart, and the notes of no owner apart from every owner’s (the owner "-" too)', async () => {
      const store = createStore();
      const alice = newOwner();
      const owners = [alice, newOwner(), undefined, '-'];
      const before = await store.list(undefined);
      for (const [index, owner] of owners.entries()) await store.add(owner, note(`note of owner ${index}`), 1_000);

      expect((await store.list(alice)).map((item) => item.text)).toEqual(['note of owner 0']);
      expect((await store.list('-')).map((item) => item.text)).toEqual(['note of owner 3']);
      expect((await store.list(undefined)).length).toBe(before.length + 1);
      const aliceNote = (await store.list(alice))[0]!;
      expect(await store.remove(owners[1], aliceNote.noteId)).toBe(false);
      expect(await store.list(alice)).toHaveLength(1);
    });

    it('answers full, with the count, once the owner has maxNotes notes', async () => {
      const store = createStore();
      const owner = newOwner();
      await store.add(owner, note('one', 1), 2);
      await store.add(owner, note('two', 2), 2);

      expect(await store.add(owner, note('three', 3), 2)).toEqual({ kind: 'full', count: 2 });
      expect((await store.list(owner)).map((item) => item.text)).toEqual(['one', 'two']);
    });

    it('never keeps more than maxNotes, even when notes are added side by side', async () => {
      const store = createStore();
      const owner = newOwner();

      const added = await Promise.all(Array.from({ length: 8 }, (_, index) => store.add(owner, note(`note ${index}`, index), 3)));

      expect(added.filter((outcome) => outcome.kind === 'added')).toHaveLength(3);
      expect(added.filter((outcome) => outcome.kind === 'full')).toHaveLength(5);
      expect(await store.list(owner)).toHaveLength(3);
    });

    it('removes a note by its id, once; an unknown id removes nothing', async () => {
      const store = createStore();
      const owner = newOwner();
      const kept = await store.add(owner, note('kept', 1), 10);
      const removed = await store.add(owner, note('removed', 2), 10);
      if (kept.kind !== 'added' || removed.kind !== 'added') throw new Error('not added');

      expect(await store.remove(owner, removed.note.noteId)).toBe(true);
      expect(await store.remove(owner, removed.note.noteId)).toBe(false);
      expect(await store.remove(owner, 'no-such-note')).toBe(false);
      expect((await store.list(owner)).map((item) => item.noteId)).toEqual([kept.note.noteId]);
    });

    it('never lets the id of a removed note remove the note written after it', async () => {
      const store = createStore();
      const owner = newOwner();
      const first = await store.add(owner, note('first'), 1);
      if (first.kind !== 'added') throw new Error('not added');
      await store.remove(owner, first.note.noteId);
      const second = await store.add(owner, note('second'), 1);

      expect(second.kind).toBe('added');
      expect(await store.remove(owner, first.note.noteId)).toBe(false);
      expect((await store.list(owner)).map((item) => item.text)).toEqual(['second']);
    });

    it('clears every note of one owner and says how many', async () => {
      const store = createStore();
      const owner = newOwner();
      const other = newOwner();
      for (const text of ['a', 'b', 'c']) await store.add(owner, note(text), 10);
      await store.add(other, note('other'), 10);

      expect(await store.clear(owner)).toBe(3);
      expect(await store.list(owner)).toEqual([]);
      expect(await store.clear(owner)).toBe(0);
      expect(await store.list(other)).toHaveLength(1);
      expect((await store.add(owner, note('again'), 10)).kind).toBe('added');
    });
  });
}
