/**
 * A real headless browser for the chat page: Debian's Chromium (apt-get install chromium; .ci/run
 * installs it), driven by playwright-core, which brings no browser of its own. Each launch gets a
 * fresh profile in a temporary folder, removed when it closes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Why no browser can run here, or undefined when one can. The browser tests skip with this as their reason. */
export function chromiumMissing(): string | undefined {
  if (!existsSync(CHROMIUM_PATH)) return `no ${CHROMIUM_PATH}: install Debian's chromium (apt-get install -y chromium; .ci/run does)`;
  const version = spawnSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (version.status !== 0) return `${CHROMIUM_PATH} --version failed: ${(version.stderr || String(version.error ?? '')).trim()}`;
  return undefined;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(viewport = { width: 1280, height: 800 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'chat-page-chromium-'));
  // playwright passes the profile as --user-data-dir itself (and refuses it among the args).
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      viewport,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      timeout: 60_000,
    });
  } catch (error) {
    // playwright ends a browser that failed to launch; no close() will come to remove its profile.
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
