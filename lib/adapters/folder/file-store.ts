import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileFolderOf, utf8Bytes, type FileInfo, type FileStore, type StoredFile } from '../../core/ports/file-store.ts';
import type { ConversationKey } from '../../core/ports/conversation-store.ts';

/**
 * The files of conversations in a local folder (npm start: `files/` under LOCAL_DATA_DIR):
 * `<root>/<owner>/<conversationId>/<digest of the name>.json`, each holding the file's name,
 * description, time and content (a digest, as a name of 100 CJK characters is longer encoded than
 * a file system allows). One JSON per file, written to a temporary name and renamed, so a
 * reader never sees half a file; 0700 folders and 0600 files, as the rest of the data folder.
 */
export function createFolderFileStore(options: { root: string; now?: () => number }): FileStore {
  const now = options.now ?? Date.now;
  const folderOf = (key: ConversationKey) => join(options.root, ...fileFolderOf(key));
  const pathOf = (key: ConversationKey, name: string) => join(folderOf(key), `${createHash('sha256').update(name).digest('hex')}.json`);

  async function read(path: string): Promise<StoredFile | undefined> {
    try {
      return JSON.parse(await readFile(path, 'utf8')) as StoredFile;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async function entries(key: ConversationKey): Promise<string[]> {
    try {
      return (await readdir(folderOf(key))).filter((entry) => entry.endsWith('.json'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  return {
    async put(key, file) {
      const stored: StoredFile = { name: file.name, description: file.description, bytes: utf8Bytes(file.content), updatedAt: new Date(now()).toISOString(), content: file.content };
      await mkdir(folderOf(key), { recursive: true, mode: 0o700 });
      const path = pathOf(key, file.name);
      const temporary = `${path}.${randomUUID()}.tmp`;
      await writeFile(temporary, JSON.stringify(stored), { mode: 0o600 });
      await rename(temporary, path);
      return infoOf(stored);
    },
    get: (key, name) => read(pathOf(key, name)),
    async list(key) {
      const files = await Promise.all((await entries(key)).map((entry) => read(join(folderOf(key), entry))));
      return files.filter((file) => file !== undefined).map(infoOf).sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    },
    async deleteAll(key) {
      const count = (await entries(key)).length;
      await rm(folderOf(key), { recursive: true, force: true });
      return count;
    },
  };
}

const infoOf = ({ name, description, bytes, updatedAt }: StoredFile): FileInfo => ({ name, description, bytes, updatedAt });
