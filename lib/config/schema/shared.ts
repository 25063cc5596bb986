/** Helpers the parts of the agent.yml schema share: text forms of numbers and booleans, switchable options. */

// A namespace import, as everywhere in this project (see lib/config/schema.ts).
import * as z from 'zod';

/**
 * `${VAR}` always yields text, so numbers and booleans also accept their plain text form
 * (`maxRounds: ${MAX_ROUNDS:-8}`); anything else still fails with "expected number".
 */
export const fromText = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return value;
};
export const numeric = <Schema extends z.ZodNumber>(schema: Schema) => z.preprocess(fromText, schema);
export const boolean = () => z.preprocess(fromText, z.boolean());
export const positiveInt = () => numeric(z.number().int().positive());
export const positiveSeconds = () => numeric(z.number().positive());
export const seconds = () => numeric(z.number().min(0));
export const stringMap = () => z.record(z.string(), z.string());
/** An option `true` turns on with its defaults, an object of its settings turns on with those, and `false` or nothing leaves off. */
export const switchable = <Shape extends z.ZodRawShape>(shape: Shape, settings: string) =>
  z.preprocess(
    (value) => {
      const plain = fromText(value);
      return plain === undefined || plain === false ? { enabled: false } : plain === true ? {} : plain;
    },
    z.strictObject({ enabled: boolean().default(true), ...shape }, { error: (issue) => (issue.code === 'invalid_type' ? `expected true, false, or settings (${settings})` : undefined) }),
  );

/** A tool name pattern as the server lists the name: `*` any run of characters, `?` one character. */
export const toolPattern = z.string().min(1, 'a tool pattern must not be empty');
