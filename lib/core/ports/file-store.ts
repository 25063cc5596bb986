/**
 * The files of a conversation (agent.yml `files`): what the built-in file_tool uploads and reads,
 * and what GET /conversations/{id}/files serves its owner. One port, two adapters: S3 when deployed
 * (lib/adapters/s3/file-store.ts), a folder under the local data folder with npm start
 * (lib/adapters/local-files/file-store.ts). Both run the same contract suite (test/contract).
 *
 * Files are text (UTF-8): the formats a model writes and reads whole (Markdown, CSV, HTML, JSON...).
 * A file belongs to one conversation of one owner; the key of both is part of where it is kept, so
 * no owner can name another's file, whatever the conversation id.
 */
import { createHash } from 'node:crypto';
import type { ConversationKey, StoreCallOptions } from './conversation-store.ts';

/** What a listing shows of a file. */
export interface FileInfo {
  name: string;
  /** What the file holds, as its writer described it (may be empty). */
  description: string;
  /** Its size, in UTF-8 bytes. */
  bytes: number;
  /** When it was last written (ISO 8601). */
  updatedAt: string;
}

export interface StoredFile extends FileInfo {
  content: string;
}

export interface NewFile {
  /** A name checked with fileNameProblem (the store does not check it again). */
  name: string;
  description: string;
  content: string;
}

export interface FileStore {
  /** Writes the file, replacing one of the same name. */
  put(key: ConversationKey, file: NewFile, options?: StoreCallOptions): Promise<FileInfo>;
  /** The file, or undefined when the conversation has none of that name. */
  get(key: ConversationKey, name: string, options?: StoreCallOptions): Promise<StoredFile | undefined>;
  /** Every file of the conversation, by name. */
  list(key: ConversationKey, options?: StoreCallOptions): Promise<FileInfo[]>;
  /** Deletes every file of the conversation; returns how many there were. */
  deleteAll(key: ConversationKey, options?: StoreCallOptions): Promise<number>;
}

/**
 * The text formats a file may have, by extension, with the content type it is served with. JoyAgent's
 * file tool reads "only text formats such as txt, md, html, csv": a name without one of these is
 * refused, so what is stored is always something a model can read back.
 */
export const FILE_TYPES: Readonly<Record<string, string>> = {
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  tsv: 'text/tab-separated-values; charset=utf-8',
  json: 'application/json; charset=utf-8',
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  yaml: 'application/yaml; charset=utf-8',
  yml: 'application/yaml; charset=utf-8',
  log: 'text/plain; charset=utf-8',
  py: 'text/x-python; charset=utf-8',
  sql: 'application/sql; charset=utf-8',
};

export const MAX_FILE_NAME_CHARS = 100;

/** The extension of a name, lower case ('' without one). */
export const extensionOf = (name: string): string => {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
};

/** The content type a file is served with (its extension's). */
export const contentTypeOf = (name: string): string => FILE_TYPES[extensionOf(name)] ?? 'text/plain; charset=utf-8';

/**
 * What is wrong with a file name, worded for whoever chose it; undefined for a good one. A name is
 * a plain file name: no folder (`/`, `\`), no control characters, none of the characters Windows
 * refuses (a download keeps its name), not hidden (`.` first), with a text format's extension.
 */
export function fileNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty';
  if ([...name].length > MAX_FILE_NAME_CHARS) return `the name has more than ${MAX_FILE_NAME_CHARS} characters`;
  if (/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(name)) return 'the name has a control character';
  if (/[/\\]/.test(name)) return 'the name has a path in it (a "/" or "\\"): give a plain file name, such as "report.md"';
  if (/[:*?"<>|]/.test(name)) return 'the name has one of the characters : * ? " < > |';
  if (name !== name.trim()) return 'the name starts or ends with a space';
  if (name.startsWith('.')) return 'the name starts with "."';
  if (!(extensionOf(name) in FILE_TYPES)) return `the name must end in a text format's extension: ${Object.keys(FILE_TYPES).map((extension) => `.${extension}`).join(', ')}`;
  return undefined;
}

/**
 * The folder a conversation's files are kept in, as two safe path segments: the owner (a digest,
 * so any owner, even "..", is one plain segment; `-` for no owner, which no digest can be) and the
 * conversation id (letters, digits, `_` and `-`, checked before any store is asked).
 */
export function fileFolderOf(key: ConversationKey): [owner: string, conversation: string] {
  const owner = key.owner === undefined ? '-' : createHash('sha256').update(key.owner).digest('hex');
  return [owner, key.conversationId];
}

/** UTF-8 bytes of a text. */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
