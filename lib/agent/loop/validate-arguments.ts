import type { ErrorObject } from 'ajv';
import type { JsonObject } from '../../core/json.ts';
import { compileSchema } from '../../json-schema/compile.ts';

/**
 * Checks a tool call's arguments against the tool's `inputSchema` before the server sees them, so
 * the model gets a precise correction ("missing required field orderNos") instead of whatever the
 * server would say. Schemas without `$schema` are JSON Schema 2020-12, as MCP specifies; draft-07
 * and older dialects get the draft-07 validator. A schema that cannot be compiled is not checked
 * here (the server still validates).
 */
type ArgumentCheck = { valid: true } | { valid: false; problems: string };

export function checkArguments(schema: JsonObject, args: JsonObject): ArgumentCheck {
  const compiled = compileSchema(schema);
  if ('error' in compiled) return { valid: true };
  const { validate } = compiled;
  if (validate(args)) return { valid: true };
  return { valid: false, problems: describeProblems(validate.errors ?? [], schema, args) };
}

function describeProblems(errors: readonly ErrorObject[], schema: JsonObject, args: JsonObject): string {
  const problems = new Set<string>();
  for (const error of errors) {
    const at = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '';
    if (error.keyword === 'required') {
      const field = [at, String(error.params.missingProperty)].filter(Boolean).join('.');
      problems.add(`missing required field "${field}"`);
    } else if (error.keyword === 'additionalProperties') {
      const field = [at, String(error.params.additionalProperty)].filter(Boolean).join('.');
      problems.add(`unexpected field "${field}"`);
    } else {
      problems.add(`"${at || '(arguments)'}" ${error.message ?? 'is invalid'}`);
    }
  }
  // Fields the schema does not declare are often the real mistake (orderNo for orderNos), even
  // when the schema allows extra properties: name them too.
  const properties = schema.properties;
  if (properties && typeof properties === 'object') {
    const known = Object.keys(properties);
    for (const field of Object.keys(args)) {
      if (!known.includes(field)) problems.add(`unexpected field "${field}"`);
    }
    if (known.length > 0) problems.add(`expected fields: ${known.join(', ')}`);
  }
  return [...problems].join('; ');
}
