import { chmod, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The local data folder holds every conversation, memory note, the HMAC key and MCP OAuth tokens:
 * readable by its user only. Folders are 0700 and files 0600; folders and files an older version
 * (or a copy) left more open are put right on start.
 */
const PRIVATE_FOLDER_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;
/** What npm start's umask leaves of the modes dynalite (LevelDB) creates its files and folders with. */
export const PRIVATE_UMASK = 0o077;

/** Creates the folder (0700) if it is missing, and takes away group and other access from it. */
export async function privateFolder(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const { mode } = await stat(folder);
  // A shared folder (sticky, as /tmp) named as the data folder is left as it is: it is not ours.
  if (mode & 0o1000) return;
  if ((mode & 0o077) !== 0) await chmod(folder, mode & PRIVATE_FOLDER_MODE);
}

/** Makes a folder and everything under it private: folders 0700, files 0600 (created if missing). */
export async function privateTree(folder: string): Promise<void> {
  await privateFolder(folder);
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) await privateTree(path);
    else if (entry.isFile() && ((await stat(path)).mode & 0o077) !== 0) await chmod(path, PRIVATE_FILE_MODE);
  }
}
