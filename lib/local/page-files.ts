import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * The chat page's files (lib/page/), as `npm start` serves them: `/` is the page, and `/<name>.js`
 * (or .css, .svg, .png) a file of the folder. Nothing else is a page file: every other path
 * (the API's, which never end in such a name) goes on to the API.
 */
const PAGE_FOLDER = fileURLToPath(new URL('../page/', import.meta.url));

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
};

/**
 * The page runs no inline script or style and no code from elsewhere, and talks to its own origin
 * and, when its `?api=` names one, that API's origin: a page served with `?api=` gets that origin
 * in `connect-src`, so even a page that misbehaves can send nothing anywhere else. (Which APIs the
 * user accepted is known only to the page, in localStorage; the page asks before its first request
 * to a new one: lib/page/api.js.)
 */
const policy = (apiOrigin: string | undefined) =>
  `default-src 'self'; connect-src 'self'${apiOrigin ? ` ${apiOrigin}` : ''}; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'`;

/** The origin of an absolute http(s) `?api=` URL, serialized by the URL parser; nothing for anything else. */
function apiOriginOf(search: URLSearchParams): string | undefined {
  const api = search.get('api');
  if (!api) return undefined;
  try {
    const url = new URL(api);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

interface PageFile {
  headers: Record<string, string>;
  body: Buffer;
}

/** The page file a GET asks for (its path and query), or undefined when the request is not for one. */
export async function readPageFile(method: string | undefined, target: string): Promise<PageFile | undefined> {
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const { pathname: path, searchParams } = new URL(target, 'http://localhost');
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
      'content-security-policy': policy(name === 'index.html' ? apiOriginOf(searchParams) : undefined),
    },
  };
}
