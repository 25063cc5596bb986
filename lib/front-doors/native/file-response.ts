import { contentTypeOf, extensionOf, type StoredFile } from '../../core/ports/file-store.ts';
import type { HttpResponse } from '../../http/types.ts';

/**
 * A conversation's file as a download. What a model wrote may be anything, an HTML page with
 * scripts included, and it is served from the API's own origin: so every file gets a sandboxing
 * Content-Security-Policy (an opaque origin, no script, nothing loaded from anywhere: it can reach
 * neither the API with the user's credentials nor the chat page's storage), `nosniff` so its
 * declared type holds, and HTML is sent as an attachment, downloaded rather than shown.
 */
export const FILE_CONTENT_SECURITY_POLICY = "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const DOWNLOADED = new Set(['html', 'htm']);

export function fileResponse(file: StoredFile): HttpResponse {
  const disposition = DOWNLOADED.has(extensionOf(file.name)) ? 'attachment' : 'inline';
  return {
    statusCode: 200,
    headers: {
      'content-type': contentTypeOf(file.name),
      'content-disposition': `${disposition}; filename="${asciiFallback(file.name)}"; filename*=UTF-8''${encodeRfc5987(file.name)}`,
      'content-security-policy': FILE_CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      // The owner's data: never kept by a shared cache.
      'cache-control': 'private, no-store',
    },
    body: file.content,
  };
}

/** The name for clients that read only `filename`: ASCII, without quotes or backslashes. */
const asciiFallback = (name: string): string => name.replace(/[^\x20-\x7e]|["\\]/g, '_');

/** RFC 5987: percent-encoded UTF-8, with the characters encodeURIComponent leaves that the grammar does not allow encoded too. */
const encodeRfc5987 = (name: string): string => encodeURIComponent(name).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
