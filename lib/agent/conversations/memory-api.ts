import { InputError, NotFoundError } from '../../core/errors.ts';
import { NOTE_ID, oldestFirst } from '../../core/notes.ts';
import type { Note, NoteStore } from '../../core/ports/notes.ts';
import { checkPageLimit } from './conversation-page.ts';

/** A page of an owner's notes, oldest first, with nextToken while more follow. */
export interface NotePage {
  notes: Note[];
  /** How many notes the owner has, and may have. */
  count: number;
  maxNotes: number;
  nextToken?: string;
}

export interface NotePageRequest {
  /** Notes on the page, 1 to 100; default 20. */
  limit?: number;
  nextToken?: string;
}

/** What the owner of notes may do with them over the API (GET and DELETE /memory). */
export interface MemoryApi {
  listNotes(owner: string | undefined, page?: NotePageRequest): Promise<NotePage>;
  deleteNote(owner: string | undefined, noteId: string): Promise<void>;
  /** Returns how many notes were deleted. */
  clearNotes(owner: string | undefined): Promise<number>;
}

/**
 * The owner's own notes: the owner is the caller's identity (none with authentication off, where
 * every caller shares the one memory of "no owner"). Notes are few (memory.maxNotes), so a page is
 * cut from all of them; its token is a position among them (the last note's time and id), which
 * stays right when notes are added or deleted between pages.
 */
export function memoryApi(store: NoteStore | undefined, maxNotes: number): MemoryApi {
  const notes = (): NoteStore => {
    if (!store) throw new NotFoundError('memory_not_enabled', 'Memory is off: turn it on with `memory: true` in agent.yml.');
    return store;
  };
  return {
    async listNotes(owner, page = {}) {
      const limit = checkPageLimit(page.limit, 'notes');
      const after = page.nextToken === undefined ? undefined : readNoteToken(page.nextToken);
      const all = await notes().list(owner);
      const following = after ? all.filter((note) => oldestFirst(note, after) > 0) : all;
      const shown = following.slice(0, limit);
      const last = shown.at(-1);
      return { notes: shown, count: all.length, maxNotes, ...(following.length > limit && last ? { nextToken: noteToken(last) } : {}) };
    },
    async deleteNote(owner, noteId) {
      if (!NOTE_ID.test(noteId)) throw new InputError('invalid_note_id', `"${noteId}" is not a note id: use an id from GET /memory.`);
      if (!(await notes().remove(owner, noteId))) throw new NotFoundError('note_not_found', `There is no note "${noteId}". GET /memory lists the notes there are.`);
    },
    clearNotes: (owner) => notes().clear(owner),
  };
}

const noteToken = (note: Note) => Buffer.from(JSON.stringify([note.createdAt, note.noteId])).toString('base64url');

function readNoteToken(token: string): Note {
  try {
    const [createdAt, noteId] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && typeof noteId === 'string') return { noteId, createdAt, text: '' };
  } catch {
    // Answered below.
  }
  throw new InputError('invalid_page_token', 'The nextToken is not one GET /memory handed out: pass it back unchanged, or leave it out for the first page.');
}
