/**
 * CORS headers for a response. API Gateway answers the preflight (OPTIONS) itself, but the actual
 * response comes from the function, and a browser reads it only when it carries
 * Access-Control-Allow-Origin. `*` allows every origin; otherwise an allowed origin is echoed back
 * (with `Vary: Origin`, so caches keep one answer per origin) and any other gets no header.
 */
export function corsHeaders(origin: string | undefined, allowedOrigins: readonly string[]): Record<string, string> {
  if (allowedOrigins.includes('*')) return { 'access-control-allow-origin': '*' };
  if (origin !== undefined && allowedOrigins.includes(origin)) return { 'access-control-allow-origin': origin, vary: 'Origin' };
  return {};
}
