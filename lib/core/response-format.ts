import type { JsonObject } from './json.ts';

/**
 * What a caller asks the final answer to be: JSON that validates against `schema` (a structured
 * answer, docs/structured-answers.md). `name` names the format to providers that take one (OpenAI's
 * `json_schema.name`); `strict` is passed on to those that honour it. The agent validates the
 * answer itself whatever the provider promises.
 */
export interface ResponseFormat {
  type: 'json_schema';
  name: string;
  schema: JsonObject;
  strict?: boolean;
}

/**
 * The instruction that asks a model without native structured output (Bedrock Converse, the demo)
 * for the format: its adapter puts it in the system prompt.
 */
export function responseFormatInstruction(format: ResponseFormat): string {
  return [
    `When you give your final answer (not while you still call tools), answer with one JSON value only, no prose and no code fence around it.`,
    `It must validate against this JSON Schema (named "${format.name}"):`,
    JSON.stringify(format.schema),
  ].join('\n');
}
