import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * The chat page's files (lib/page/), as `npm start` serves them: `/` is the page, and `/<name>.js`
 * (or .css, .svg, .png) a file of the folder. Nothing else is a page file: every other path
 * (the API's, which never end in such a name) goes on to the API.
 */
export const PAGE_FOLDER = fileURLToPath(new URL('../page/', import.meta.url));

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
};

/**
 * The page talks only to its own origin, or to the API named by `?api=` (any origin); it runs no
 * inline script or style and no code from elsewhere.
 */
const CONTENT_SECURITY_POLICY = "default-src 'self'; connect-src 'self' http: https:; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

export interface PageFile {
  headers: Record<string, string>;
  body: Buffer;
}

/** The page file a GET asks for, or undefined when the request is not for one. */
export async function readPageFile(method: string | undefined, path: string): Promise<PageFile | undefined> {
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const name = path === '/' ? 'index.html' : /^\/([a-z0-9][a-z0-9-]*\.(?:js|css|svg|png))$/.exec(path)?.[1];
  if (!name) return undefined;
  let body: Buffer;
  try {
    body = await readFile(PAGE_FOLDER + name);
  } catch {
    return undefined;
  }
  return {
    body,
    headers: {
      'content-type': TYPES[name.slice(name.lastIndexOf('.') + 1)]!,
      // Served from the working tree: an edited file shows on the next reload.
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'content-security-policy': CONTENT_SECURITY_POLICY,
    },
  };
}
