/**
 * The build's half of the pre-validated agent.json (lib/config/prevalidated.ts): agent.yml
 * validated with the schema once, when the Lambda bundles are built (infra/bundled-config.ts).
 *
 * A `${VAR}` is filled in from the function's environment at cold start, so the build can only
 * vouch for a document whose placeholders no value can make invalid: each sits where the schema
 * takes any text as it is (a plain string, no check, no transform or refinement around it; a stdio
 * server's args, env and cwd). Anything else (`maxRounds: ${MAX_ROUNDS}`, a URL, a header of a
 * remote server, whose entry is refined as a whole) leaves the document to be validated in full
 * at cold start, as it always was.
 */
import type * as z from 'zod';
import { PLACEHOLDER_TEST } from './interpolate.ts';
import { stampOf, type Prevalidated, type ValuePath } from './prevalidated.ts';
import { fileSchema, remoteServerSchema, stdioServerSchema } from './schema.ts';
import { assertSecretsFromEnvironment } from './secret-fields.ts';
import { isStdioEntry, validateFile } from './validate.ts';

/**
 * The validated form of an agent.yml document, for `schema` (the version of the schema the bundles
 * are built with); undefined when a placeholder could make it invalid. Throws ConfigError, with the
 * messages a function would have given at cold start, for a document that is invalid whatever the
 * environment.
 */
export function prevalidate(document: Record<string, unknown>, source: string, schema: string): Prevalidated | undefined {
  assertSecretsFromEnvironment(document, source);
  const placeholders = placeholderPaths(document, []);
  if (!placeholders.every((path) => takesAnyText(schemaAt(document, path)))) return undefined;
  const file = validateFile(document, source);
  // What JSON cannot carry (an Infinity, a Date a transform made) would reach the function changed.
  if (!carriedByJson(file)) return undefined;
  return { stamp: stampOf(schema, document, file, placeholders), file, placeholders };
}

/** Whether a value comes back from JSON as it went in (an undefined property comes back absent, which reads the same). */
function carriedByJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every((item) => item !== undefined && carriedByJson(item));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value).every((item) => item === undefined || carriedByJson(item));
  }
  return false;
}

/** Where the document's text values hold a placeholder (or `$$`), in the order interpolation visits them. */
function placeholderPaths(value: unknown, path: ValuePath): ValuePath[] {
  if (typeof value === 'string') return PLACEHOLDER_TEST.test(value) ? [path] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => placeholderPaths(item, [...path, index]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => placeholderPaths(item, [...path, key]));
  return [];
}

/** The schema an `mcpServers` entry is checked with is chosen by the entry (validate.ts); the rest is fileSchema's. */
function schemaAt(document: Record<string, unknown>, path: ValuePath): { schema: unknown; rest: ValuePath } {
  if (path[0] !== 'mcpServers' || path.length < 3) return { schema: fileSchema, rest: path };
  const entry = (document.mcpServers as Record<string, unknown>)[path[1]!];
  return { schema: isStdioEntry(entry) ? stdioServerSchema : remoteServerSchema, rest: path.slice(2) };
}

/** Whether every string is valid at `rest` inside `schema`, and is kept there as it is. */
function takesAnyText({ schema, rest }: { schema: unknown; rest: ValuePath }): boolean {
  let current = definition(schema);
  for (const key of rest) {
    while (current && WRAPPERS.has(current.type)) current = definition(current.innerType);
    if (!current || current.checks?.length) return false;
    if (current.type === 'object' && typeof key === 'string') current = definition(current.shape?.[key]);
    else if (current.type === 'record' && typeof key === 'string') current = definition(current.valueType);
    else if (current.type === 'array' && typeof key === 'number') current = definition(current.element);
    else return false;
  }
  while (current && WRAPPERS.has(current.type)) current = definition(current.innerType);
  return current?.type === 'string' && !current.format && !current.coerce && !current.checks?.length;
}

/** Wrappers that hand a present value to their inner schema unchanged. */
const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable']);

interface Definition {
  type: string;
  checks?: unknown[];
  format?: string;
  coerce?: boolean;
  innerType?: unknown;
  shape?: Record<string, unknown>;
  valueType?: unknown;
  element?: unknown;
}

function definition(schema: unknown): Definition | undefined {
  return (schema as z.ZodType | undefined)?._zod.def as Definition | undefined;
}
