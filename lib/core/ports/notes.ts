/** Memory notes kept for an owner across conversations. */
import type { StoreCallOptions } from './conversation-store.ts';

/** A note the agent keeps for an owner across conversations (agent.yml `memory`). */
export interface Note {
  /** Stable and unique among the owner's notes. */
  noteId: string;
  text: string;
  /** ISO time it was written. */
  createdAt: string;
  /** The conversation it was written in. */
  conversationId?: string;
}

/** A note to keep, and the most notes its owner may have. */
export interface NewNote {
  text: string;
  createdAt: string;
  conversationId?: string;
}

export type AddedNote = { kind: 'added'; note: Note } | { kind: 'full'; count: number };

/**
 * Notes per owner (undefined: no owner, authentication off). An owner's notes are few (the
 * configured maximum), so they are always read whole. The store keeps the maximum true even when
 * two conversations of one owner add a note at the same moment.
 */
export interface NoteStore {
  /** Every note of the owner, oldest first. */
  list(owner: string | undefined, options?: StoreCallOptions): Promise<Note[]>;
  /** Adds a note unless the owner already has `maxNotes`. */
  add(owner: string | undefined, note: NewNote, maxNotes: number, options?: StoreCallOptions): Promise<AddedNote>;
  /** Deletes one note; false when the owner has none by that id. */
  remove(owner: string | undefined, noteId: string, options?: StoreCallOptions): Promise<boolean>;
  /** Deletes every note of the owner; returns how many. */
  clear(owner: string | undefined, options?: StoreCallOptions): Promise<number>;
}
