/**
 * Fits a tool's inputSchema to what model APIs accept as function parameters. Providers differ in
 * how much JSON Schema they read: many reject or ignore `$ref`/`$defs` and `$schema`, and some
 * refuse an object without `properties`. So, once per catalog refresh (never per round):
 *
 *   - every local `$ref` ("#/$defs/Address", "#/definitions/…", "#", or an anchor: "#address") is
 *     replaced by what it points at; a reference to itself is expanded `MAXIMUM_RECURSION` levels
 *     deep and then becomes `{}` (any value), so a recursive schema stays finite;
 *   - `$defs`, `definitions`, `$schema` and `$anchor` are removed (an anchor inlined twice would name
 *     two places), and the top-level `$id`;
 *   - every `type: "object"` without `properties` gets `properties: {}`.
 *
 * The fitted schema accepts at least what the original accepts (a cut recursion accepts anything),
 * so the model is never shown a rule the server does not have; a call's arguments are checked
 * against the original (lib/agent/loop/tool-plan.ts), compiled once when the tool was judged. Call
 * it only on a schema that compiled (compile.ts): a dangling `$ref` has been caught by then.
 */
import type { JsonObject } from '../../../core/json.ts';

const MAXIMUM_RECURSION = 2;
/** Dropped wherever they appear: definitions and anchors are inlined, and a dialect means nothing to a model API. */
const DROPPED_KEYS = new Set(['$defs', 'definitions', '$schema', '$anchor']);

export function fitSchemaForModel(schema: JsonObject): JsonObject {
  const { $id: _id, ...rest } = schema;
  const fitted = fitNode(rest, schema, []);
  return isObject(fitted) ? fitted : { type: 'object', properties: {} };
}

function fitNode(node: unknown, root: JsonObject, expanding: string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => fitNode(item, root, expanding));
  if (!isObject(node)) return node;
  const reference = node.$ref;
  if (typeof reference === 'string' && reference.startsWith('#')) {
    const { $ref: _reference, ...siblings } = node;
    if (expanding.filter((seen) => seen === reference).length >= MAXIMUM_RECURSION) {
      return fitNode({ ...siblings, description: describeCut(siblings, reference) }, root, expanding);
    }
    const target = resolvePointer(root, reference);
    const expanded = fitNode(target, root, [...expanding, reference]);
    // Keywords beside a $ref apply too (2020-12); the sibling wins where both say the same thing.
    return isObject(expanded) ? fitNode({ ...expanded, ...siblings }, root, expanding) : expanded;
  }
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED_KEYS.has(key)) continue;
    result[key] = key === 'properties' && isObject(value) ? fitProperties(value, root, expanding) : fitNode(value, root, expanding);
  }
  if (result.type === 'object' && !isObject(result.properties)) result.properties = {};
  return result;
}

/** Property names are data, not keywords: a property called `$ref` or `$defs` is kept as it is. */
function fitProperties(properties: JsonObject, root: JsonObject, expanding: string[]): JsonObject {
  return Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, fitNode(value, root, expanding)]));
}

function describeCut(siblings: JsonObject, reference: string): string {
  const name = reference.slice(reference.lastIndexOf('/') + 1) || 'root';
  const note = `(a nested ${name === '#' ? 'root' : name} structure, not expanded further)`;
  return typeof siblings.description === 'string' ? `${siblings.description} ${note}` : note;
}

/** A JSON Pointer fragment ("#/$defs/a~1b") or an anchor ("#address") in the root schema; `{}` where it leads nowhere. */
function resolvePointer(root: JsonObject, reference: string): unknown {
  const pointer = decodeURIComponent(reference.slice(1));
  if (pointer === '' || pointer === '/') return root;
  if (!pointer.startsWith('/')) return anchored(root, pointer) ?? {};
  let current: unknown = root;
  for (const segment of pointer.split('/').slice(1)) {
    const key = segment.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(current) && !Array.isArray(current)) return {};
    current = (current as Record<string, unknown>)[key];
  }
  return current === undefined ? {} : current;
}

/** The subschema whose `$anchor` is `name` (2020-12 plain-name fragments). */
function anchored(node: unknown, name: string): JsonObject | undefined {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = anchored(item, name);
      if (found) return found;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  if (node.$anchor === name) return node;
  for (const value of Object.values(node)) {
    const found = anchored(value, name);
    if (found) return found;
  }
  return undefined;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
