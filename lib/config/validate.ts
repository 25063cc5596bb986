/**
 * agent.yml checked against its zod schema: the file as a whole, then each MCP server by its kind
 * (stdio or remote), so each gets the messages of its own kind. The one place a configuration is
 * parsed with zod. lib/config/load.ts imports it as `#config-validation` (package.json "imports"):
 * the Lambda bundles take functions/substitutes/config-validation-beside.ts instead, which
 * evaluates this module (and constructs the schemas, about 13 ms of a cold start) only for an
 * agent.json the build did not validate (lib/config/prevalidated.ts).
 */
import type * as z from 'zod';
import { ConfigError } from '../core/errors.ts';
import { formatIssues } from './issues.ts';
import { fileSchema, remoteServerSchema, stdioServerSchema, type AgentFile } from './schema.ts';

export type StdioServerFile = z.output<typeof stdioServerSchema>;
export type RemoteServerFile = z.output<typeof remoteServerSchema>;

/** agent.yml as the schema outputs it (defaults filled in), each server checked as its kind; paths not yet resolved. */
export type ValidatedFile = Omit<AgentFile, 'mcpServers'> & { mcpServers: Record<string, StdioServerFile | RemoteServerFile> };

/**
 * Agent.yml's schema version whose pre-validated agent.json this code takes as it is: none when
 * run from the sources, which always validate; a Lambda bundle takes the one it was built with.
 */
export const ACCEPTED_PREVALIDATION: string | undefined = undefined;

/** Validates an interpolated agent.yml document; `source` names the file in messages. Throws ConfigError. */
export function validateFile(document: unknown, source: string): ValidatedFile {
  const file = check(fileSchema, document, '', source);
  const servers = Object.entries(file.mcpServers).map(([name, entry]) => [name, checkServer(name, entry, source)] as const);
  return { ...file, mcpServers: Object.fromEntries(servers) };
}

/** A stdio entry has `command` (or type stdio), a remote one `url`. */
export function isStdioEntry(entry: unknown): boolean {
  const fields = entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>) : {};
  return 'command' in fields || fields.type === 'stdio';
}

function checkServer(name: string, entry: unknown, source: string): StdioServerFile | RemoteServerFile {
  const path = `mcpServers.${name}`;
  if (isStdioEntry(entry)) return check(stdioServerSchema, entry, path, source);
  if (entry !== null && typeof entry === 'object' && 'url' in entry) return check(remoteServerSchema, entry, path, source);
  throw new ConfigError(
    `${source} is invalid:\n  - ${path}: give either "command" (a stdio server) or "url" (a Streamable HTTP or SSE server)`,
  );
}

function check<Schema extends z.ZodType>(schema: Schema, value: unknown, path: string, source: string): z.output<Schema> {
  // Parsed once per process: Zod's fast path compiles a function per object schema on first use
  // (new Function), which costs a cold start more than it saves a single parse (about 6 ms).
  const parsed = schema.safeParse(value, { jitless: true });
  if (parsed.success) return parsed.data;
  throw new ConfigError(`${source} is invalid:\n${formatIssues(parsed.error.issues, path, schema)}`);
}
