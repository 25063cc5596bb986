import type { Note } from './ports/notes.ts';

/** Oldest first; notes of the same millisecond in the order of their ids (every store lists them so). */
export const oldestFirst = (left: Note, right: Note): number => left.createdAt.localeCompare(right.createdAt) || left.noteId.localeCompare(right.noteId);

/** What a note id may look like in a request (each store gives out its own kind, within this). */
export const NOTE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Marks a Reflexion lesson among an owner's notes: kept beside memory's own, left out of its notes message. */
export const LESSON_MARK = '[Lesson] ';
