import type { ErrorObject } from 'ajv';
import { InputError } from '../../core/errors.ts';
import type { ResponseFormat } from '../../core/response-format.ts';
import { compileSchema } from '../../json-schema/compile.ts';

/** What a final answer's check found: the parsed answer, or what to tell the model. */
export type AnswerVerdict = { ok: true; output: unknown } | { ok: false; problems: string };

/**
 * A turn's structured answer (docs/structured-answers.md): the format every model call carries, and
 * the check of each final answer (a reply without tool calls). The loop sends a rejected answer
 * back with its problems while rounds are left.
 */
export interface AnswerCheck {
  readonly format: ResponseFormat;
  check(content: string | null): AnswerVerdict;
  /** The message that sends a rejected answer back to the model. */
  feedback(problems: string): string;
}

/** The check of a format; a schema that is not valid JSON Schema is the caller's mistake (400), named. */
export function answerCheck(format: ResponseFormat): AnswerCheck {
  const compiled = compileSchema(format.schema);
  if ('error' in compiled) throw new InputError('invalid_response_format', `The responseFormat schema "${format.name}" is not a valid JSON Schema: ${compiled.error}.`);
  const { validate } = compiled;
  return {
    format,
    check(content) {
      let output: unknown;
      try {
        output = JSON.parse(content ?? '');
      } catch (error) {
        return { ok: false, problems: `it is not JSON (${(error as Error).message})` };
      }
      if (validate(output)) return { ok: true, output };
      return { ok: false, problems: problemsOf(validate.errors ?? []) };
    },
    feedback: (problems) =>
      `Your answer does not validate against the JSON Schema "${format.name}": ${problems}. Answer again with only the corrected JSON value, no other text.`,
  };
}

/** Ajv's own words, each at its place in the answer: "/city must be string", "(the answer) must have required property 'summary'". */
const problemsOf = (errors: readonly ErrorObject[]): string =>
  [...new Set(errors.map((error) => `${error.instancePath || '(the answer)'} ${error.message ?? 'is invalid'}${error.keyword === 'additionalProperties' ? ` ("${String(error.params.additionalProperty)}")` : ''}`))].join('; ');
