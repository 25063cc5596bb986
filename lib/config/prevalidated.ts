/**
 * The pre-validated agent.json of a Lambda bundle: the build validates agent.yml with the schema
 * (lib/config/prevalidate.ts) and writes the result beside the document as written, under one key,
 * so a function's cold start takes the configuration without evaluating a zod schema.
 *
 * What is left for the function is what depends on where and with what it runs: the `${VAR}`
 * placeholders (only those the schema takes as any text, so no value can make the file invalid),
 * paths resolved against agent.json's folder, and the environment's overrides (lib/config/load.ts).
 *
 * The stamp ties the validated form to the schema it was validated with and to the document: a file
 * from another version of the code, or edited after the build, is validated in full instead.
 */
import { createHash } from 'node:crypto';
import { ConfigError, errorMessage } from '../core/errors.ts';
import type { Environment } from './environment.ts';
import { interpolateEnvironment } from './interpolate.ts';
import type { ValidatedFile } from './validate.ts';

/** The key of agent.json that holds the validated form; never a key of agent.yml. */
export const PREVALIDATED_KEY = '$validated';

/** A key of an object or an index of a list, from the document's root to a value. */
export type ValuePath = readonly (string | number)[];

export interface Prevalidated {
  stamp: string;
  file: ValidatedFile;
  /** The text values with `${VAR}` or `$$`, in the document's order (the order their errors come in). */
  placeholders: ValuePath[];
}

/** Ties the validated form to the schema version and to the document it was validated from. */
export function stampOf(schema: string, document: object, file: object, placeholders: readonly ValuePath[]): string {
  return createHash('sha256').update(schema).update('\n').update(JSON.stringify([document, file, placeholders])).digest('base64url');
}

/**
 * The configuration of a pre-validated agent.json, its placeholders filled in from the environment;
 * undefined when this code does not accept it (no accepted schema, another schema, or a stamp that
 * does not fit the document), and the document must be validated in full.
 */
export function takePrevalidated(
  prevalidated: unknown,
  document: object,
  accepted: string | undefined,
  environment: Environment,
  source: string,
): ValidatedFile | undefined {
  if (accepted === undefined || !isPrevalidated(prevalidated)) return undefined;
  const { stamp, file, placeholders } = prevalidated;
  if (stamp !== stampOf(accepted, document, file, placeholders)) return undefined;
  for (const path of placeholders) {
    const parent = path.slice(0, -1).reduce<unknown>((value, key) => (value as Record<string | number, unknown>)[key], file) as Record<string | number, unknown>;
    const key = path.at(-1)!;
    try {
      parent[key] = interpolateEnvironment(parent[key], environment, spelt(path));
    } catch (error) {
      throw new ConfigError(`${source} is invalid:\n  - ${errorMessage(error)}`, { cause: error });
    }
  }
  return file;
}

/** A path as interpolateEnvironment names it in messages: `mcpServers.demo.args[0]`. */
export function spelt(path: ValuePath): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${key}` : key), '');
}

function isPrevalidated(value: unknown): value is Prevalidated {
  const fields = value as Partial<Prevalidated> | null;
  return typeof fields?.stamp === 'string' && typeof fields.file === 'object' && fields.file !== null && Array.isArray(fields.placeholders);
}
