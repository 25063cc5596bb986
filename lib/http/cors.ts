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

/**
 * The answer to a CORS preflight where no API Gateway answers it (npm start): an allowed origin may
 * use the API's methods with the headers it asks for; any other gets no CORS header, so its browser
 * sends nothing. Undefined when the request is no preflight.
 */
export function preflightHeaders(headers: Readonly<Record<string, string | string[] | undefined>>, allowedOrigins: readonly string[]): Record<string, string> | undefined {
  const origin = headers.origin;
  if (typeof origin !== 'string' || headers['access-control-request-method'] === undefined) return undefined;
  const allowed = corsHeaders(origin, allowedOrigins);
  if (!allowed['access-control-allow-origin']) return {};
  const requested = headers['access-control-request-headers'];
  return {
    ...allowed,
    'access-control-allow-methods': 'GET, POST, DELETE',
    ...(typeof requested === 'string' ? { 'access-control-allow-headers': requested } : {}),
    'access-control-max-age': '600',
  };
}
