/**
 * The token store of local runs: one JSON file under the local data folder (LOCAL_DATA_DIR,
 * `.data` by default), readable and writable by its owner only (0600). Each write goes to a new
 * 0600 file that is then renamed over the old one, so a reader never sees half a document and a
 * file that was once readable by others is replaced by one that is not.
 *
 * A write holds `<file>.lock` (created exclusively) from checking the revision to the rename, so
 * two processes (the login command beside `npm start`) cannot both write over the same revision.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  createDocumentTokenStore,
  parseTokenDocument,
  RevisionConflict,
  type OAuthTokenStore,
  type RevisedDocument,
  type TokenDocument,
} from './store.ts';

export const TOKEN_FILE_NAME = 'mcp-oauth-tokens.json';

/** A lock older than this belongs to a process that died while writing. */
const STALE_LOCK_MS = 10_000;
const LOCK_WAIT_MS = 15_000;

export function createFileTokenStore(path: string): OAuthTokenStore {
  return createDocumentTokenStore({
    location: path,
    load: () => load(path),
    save: (document, revision) => withLock(`${path}.lock`, () => save(path, document, revision)),
  });
}

async function load(path: string): Promise<RevisedDocument> {
  const text = await readText(path);
  if (text === undefined) return { document: parseTokenDocument('', path), revision: undefined };
  return { document: parseTokenDocument(text, path), revision: revisionOf(text) };
}

async function save(path: string, document: TokenDocument, revision: string | undefined): Promise<void> {
  const current = await readText(path);
  if ((current === undefined ? undefined : revisionOf(current)) !== revision) throw new RevisionConflict();
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, JSON.stringify(document, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    // The mode of writeFile is filtered by the umask; 0600 is narrower than any umask leaves, but be exact.
    await chmod(temporary, 0o600);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

async function withLock<T>(lockPath: string, work: () => Promise<T>): Promise<T> {
  await mkdir(dirname(lockPath), { recursive: true });
  const giveUpAt = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await (await open(lockPath, 'wx', 0o600)).close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(lockPath).then((lock) => Date.now() - lock.mtimeMs, () => 0);
      if (age > STALE_LOCK_MS) await rm(lockPath, { force: true });
      else if (Date.now() > giveUpAt) throw new Error(`the MCP OAuth token file is locked by another process (${lockPath})`);
      else await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lockPath, { force: true });
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function revisionOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
