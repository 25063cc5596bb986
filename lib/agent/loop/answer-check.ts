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

function problemsOf(errors: readonly ErrorObject[]): string {
  const problems = new Set<string>();
  for (const error of errors) {
    const at = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '(the answer)';
    if (error.keyword === 'required') problems.add(`missing required field "${[error.instancePath.slice(1).replaceAll('/', '.'), String(error.params.missingProperty)].filter(Boolean).join('.')}"`);
    else if (error.keyword === 'additionalProperties') problems.add(`unexpected field "${[error.instancePath.slice(1).replaceAll('/', '.'), String(error.params.additionalProperty)].filter(Boolean).join('.')}"`);
    else problems.add(`${at} ${error.message ?? 'is invalid'}`);
  }
  return [...problems].join('; ');
}
