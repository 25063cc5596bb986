/**
 * Custom headers from tool parameters (SEP-2243, protocol revision 2026-07-28): a tool marks a
 * parameter of its inputSchema with `"x-mcp-header": "Region"`, and every tools/call of it carries
 * that argument's value as the HTTP header `Mcp-Param-Region`, so a gateway or load balancer can
 * route on it without reading the body (a 2026 server checks that header and body agree).
 *
 * A declaration the spec forbids makes the whole tool invalid, and a client must not offer it:
 * one not reached through `properties` alone (under items, anyOf, $defs, ...), an empty name or
 * one that is not an HTTP token, a type other than string, integer or boolean, or a name used twice
 * (case-insensitively).
 */
import type { JsonObject } from '../../../core/json.ts';

export interface HeaderParameter {
  /** Where the argument is: property names from the arguments object down. */
  path: string[];
  /** The header it travels in, `Mcp-Param-<name>`. */
  header: string;
}

const DECLARATION_KEY = 'x-mcp-header';
/** RFC 9110 `token`: no spaces, control characters, non-ASCII or delimiters such as ":". */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PERMITTED_TYPES = new Set(['string', 'integer', 'boolean']);
/** Subschemas a declaration must not sit under: only a chain of `properties` reaches a header. */
const UNREACHABLE_KEYWORDS = [
  'items', 'prefixItems', 'contains', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames',
  'patternProperties', 'dependentSchemas', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else', '$defs', 'definitions',
];
/** Those whose value maps names to subschemas. */
const NAMED_SUBSCHEMA_KEYWORDS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

/** The header parameters an inputSchema declares (often none), or why its declarations are invalid. */
export function headerParametersOf(inputSchema: JsonObject): HeaderParameter[] | { error: string } {
  const found: HeaderParameter[] = [];
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    const schema = node as JsonObject;
    if (DECLARATION_KEY in schema) {
      const at = path.length === 0 ? 'the schema itself' : path.join('.');
      if (!reachable || path.length === 0) return `${at}: x-mcp-header is allowed only on a property reached through "properties" alone`;
      const name = schema[DECLARATION_KEY];
      if (typeof name !== 'string' || name === '') return `${at}: x-mcp-header must be a non-empty string`;
      if (!HTTP_TOKEN.test(name)) return `${at}: x-mcp-header ${JSON.stringify(name)} is not a valid HTTP header name (no spaces, control characters, non-ASCII or delimiters)`;
      if (typeof schema.type !== 'string' || !PERMITTED_TYPES.has(schema.type)) {
        return `${at}: x-mcp-header is allowed only on string, integer and boolean parameters, not ${typeof schema.type === 'string' ? schema.type : 'one without a single type'}`;
      }
      const earlier = seen.get(name.toLowerCase());
      if (earlier !== undefined) return `${at}: x-mcp-header ${JSON.stringify(name)} is already declared as ${JSON.stringify(earlier)} (names are case-insensitive)`;
      seen.set(name.toLowerCase(), name);
      found.push({ path, header: `Mcp-Param-${name}` });
    }
    const properties = schema.properties;
    if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault) return fault;
      }
    }
    for (const keyword of UNREACHABLE_KEYWORDS) {
      const value = schema[keyword];
      if (value === undefined) continue;
      const branches = Array.isArray(value) ? value : NAMED_SUBSCHEMA_KEYWORDS.has(keyword) && typeof value === 'object' && value !== null ? Object.values(value) : [value];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(inputSchema, [], true);
  return fault === undefined ? found : { error: fault };
}

/** The `Mcp-Param-*` headers of one call: an argument that is null, absent or not a primitive has none. */
export function paramHeaders(parameters: HeaderParameter[], args: unknown): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  for (const parameter of parameters) {
    const value = headerValue(valueAt(args, parameter.path));
    if (value !== undefined) headers.push([parameter.header, value]);
  }
  return headers;
}

const PLAIN_VALUE = /^[\x20-\x7E]*$/;
const BASE64_SENTINEL = /^=\?base64\?.*\?=$/;

/**
 * Strings as they are when they are printable ASCII without surrounding spaces; otherwise (and when
 * they would read as the sentinel themselves) as `=?base64?<UTF-8 in Base64>?=`. Numbers in decimal,
 * booleans as `true`/`false`.
 */
export function headerValue(value: unknown): string | undefined {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value)) ? String(value) : undefined;
  if (typeof value !== 'string') return undefined;
  if (PLAIN_VALUE.test(value) && value === value.trim() && !BASE64_SENTINEL.test(value)) return value;
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

function valueAt(root: unknown, path: string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
