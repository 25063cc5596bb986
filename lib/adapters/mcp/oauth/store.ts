/**
 * Where OAuth tokens are kept between processes: the port, and the one-JSON-document layout both
 * stores use (a file locally, a Secrets Manager secret on AWS).
 *
 *   { "version": 1, "servers": { "<server name>": OAuthServerRecord, ... } }
 *
 * Writers are processes that cannot lock each other (Lambda containers, the login command, the
 * local server), so every write is a compare-and-swap on the revision it read: a writer that lost
 * the race reads again and reapplies its change, so one server's refresh never erases another's.
 */
import type { OAuthServerRecord } from './record.ts';

export interface OAuthTokenStore {
  /** A description for messages: the file path or the secret ARN, never its content. */
  readonly location: string;
  read(server: string): Promise<OAuthServerRecord | undefined>;
  /**
   * Applies `change` to the server's current record and stores the result (undefined removes the
   * record). `change` may run more than once when another writer got there first; it must be pure.
   * Resolves to what was stored.
   */
  update(
    server: string,
    change: (current: OAuthServerRecord | undefined) => OAuthServerRecord | undefined,
  ): Promise<OAuthServerRecord | undefined>;
}

export interface TokenDocument {
  version: 1;
  servers: Record<string, OAuthServerRecord>;
}

/** A document as read, with what the next write must find unchanged (undefined: nothing stored yet). */
export interface RevisedDocument {
  document: TokenDocument;
  revision: string | undefined;
}

/** What a concrete store does: read the whole document, and write it only over the revision read. */
interface DocumentBackend {
  readonly location: string;
  load(): Promise<RevisedDocument>;
  /** Throws RevisionConflict when the stored document is no longer `revision`. */
  save(document: TokenDocument, revision: string | undefined): Promise<void>;
}

/** Another writer stored a newer document since it was read. */
export class RevisionConflict extends Error {}

/** Enough for any realistic contention: a handful of processes refreshing at the same moment. */
const MAX_ATTEMPTS = 8;

export function createDocumentTokenStore(backend: DocumentBackend): OAuthTokenStore {
  return {
    location: backend.location,
    async read(server) {
      const { document } = await backend.load();
      return document.servers[server];
    },
    async update(server, change) {
      for (let attempt = 1; ; attempt++) {
        const { document, revision } = await backend.load();
        const next = change(document.servers[server]);
        const servers = { ...document.servers };
        if (next === undefined) delete servers[server];
        else servers[server] = next;
        try {
          await backend.save({ version: 1, servers }, revision);
          return next;
        } catch (error) {
          if (!(error instanceof RevisionConflict) || attempt >= MAX_ATTEMPTS) throw error;
          // Back off a little, differently per writer, so racing writers do not collide again.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 50 * attempt));
        }
      }
    },
  };
}

/** Reads a stored document leniently: an empty store is an empty document; anything else must look right. */
export function parseTokenDocument(text: string, location: string): TokenDocument {
  if (text.trim() === '') return { version: 1, servers: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The content is secret: the message names the place, never the text.
    throw new Error(`the MCP OAuth token store ${location} does not hold JSON`);
  }
  const servers = (parsed as { servers?: unknown } | null)?.servers;
  if (parsed === null || typeof parsed !== 'object' || (servers !== undefined && (servers === null || typeof servers !== 'object'))) {
    throw new Error(`the MCP OAuth token store ${location} does not hold {"version": 1, "servers": {...}}`);
  }
  return { version: 1, servers: (servers ?? {}) as Record<string, OAuthServerRecord> };
}

/** Keeps records in the process only: tests, and embedding code that brings no store. */
export function createMemoryTokenStore(initial: Record<string, OAuthServerRecord> = {}): OAuthTokenStore {
  let document: TokenDocument = { version: 1, servers: structuredClone(initial) };
  let revision = 0;
  return createDocumentTokenStore({
    location: 'memory',
    async load() {
      return { document: structuredClone(document), revision: String(revision) };
    },
    async save(next, expected) {
      if (expected !== String(revision)) throw new RevisionConflict();
      document = structuredClone(next);
      revision++;
    },
  });
}
