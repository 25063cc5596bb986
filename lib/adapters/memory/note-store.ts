import { randomUUID } from 'node:crypto';
import { oldestFirst } from '../../core/notes.ts';
import type { Note, NoteStore } from '../../core/ports/notes.ts';

/**
 * A NoteStore in memory: for embedding code, demos and tests. The same rules as the DynamoDB store
 * (at most maxNotes per owner, ids never reused), values copied in and out; gone when the process ends.
 */
export function createMemoryNoteStore(): NoteStore {
  /** owner → noteId → note */
  const owners = new Map<string, Map<string, Note>>();
  const keyOf = (owner: string | undefined) => JSON.stringify([owner ?? null]);
  const notesOf = (owner: string | undefined) => owners.get(keyOf(owner)) ?? new Map<string, Note>();

  // Each method changes state before its first await: concurrent calls are serialised.
  return {
    async list(owner) {
      return [...notesOf(owner).values()].map((note) => structuredClone(note)).sort(oldestFirst);
    },
    async add(owner, note, maxNotes) {
      const notes = notesOf(owner);
      if (notes.size >= maxNotes) return { kind: 'full', count: notes.size };
      const stored: Note = { noteId: randomUUID().replaceAll('-', ''), text: note.text, createdAt: note.createdAt, ...(note.conversationId ? { conversationId: note.conversationId } : {}) };
      notes.set(stored.noteId, stored);
      owners.set(keyOf(owner), notes);
      return { kind: 'added', note: structuredClone(stored) };
    },
    async remove(owner, noteId) {
      return notesOf(owner).delete(noteId);
    },
    async clear(owner) {
      const count = notesOf(owner).size;
      owners.delete(keyOf(owner));
      return count;
    },
  };
}
