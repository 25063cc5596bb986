import { ConfigError } from '../../core/errors.ts';
import type { CedarEngine } from './engine.ts';
import { describeError, describeErrors } from './locations.ts';

/** A file's text and the name it is reported under. */
export interface SourceText {
  text: string;
  source: string;
}

/** The policies of a file, checked, each under its id. */
export interface LoadedPolicySet {
  /** Policy id → its text: `@id("…")` where the policy has one, else `policy<N>` (N counts from 0 in the file, as Cedar numbers them). */
  policies: Record<string, string>;
  effects: ReadonlyMap<string, 'permit' | 'forbid'>;
  annotations: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

/**
 * Reads a policy file as Cedar does: it must parse, have no templates, and (with a schema) pass
 * Cedar's strict validation. Any failure is a ConfigError with Cedar's message at its line and
 * column, so a broken file stops start-up rather than denying (or allowing) calls at random.
 */
export function loadPolicySet(cedar: CedarEngine, policies: SourceText, schema?: SourceText): LoadedPolicySet {
  const { text, source } = policies;
  const parsed = cedar.checkParsePolicySet({ staticPolicies: text });
  if (parsed.type === 'failure') throw new ConfigError(`${source} is not a valid Cedar policy set:\n  - ${describeErrors(parsed.errors, text, source)}`);
  if (schema) validate(cedar, policies, schema);
  const parts = cedar.policySetTextToParts(text);
  if (parts.type === 'failure') throw new ConfigError(`${source} is not a valid Cedar policy set:\n  - ${describeErrors(parts.errors, text, source)}`);
  if (parts.policy_templates.length > 0) throw new ConfigError(`${source} has policy templates (?principal, ?resource): toolPolicy takes static policies only`);
  // The parts come sorted by id; their place in the file gives Cedar's own numbering.
  const taken = new Set<number>();
  const located = parts.policies.map((part) => {
    let at = text.indexOf(part);
    while (at >= 0 && taken.has(at)) at = text.indexOf(part, at + 1);
    taken.add(at);
    return { part, at };
  });
  located.sort((first, second) => first.at - second.at);
  const loaded: LoadedPolicySet = { policies: {}, effects: new Map(), annotations: new Map() };
  located.forEach(({ part }, index) => {
    const json = cedar.policyToJson(part);
    if (json.type === 'failure') throw new ConfigError(`${source}: ${json.errors.map((error) => error.message).join('; ')}`);
    const annotations = json.json.annotations ?? {};
    const id = annotations.id ?? `policy${index}`;
    if (id in loaded.policies) throw new ConfigError(`${source}: two policies have the id "${id}": give each its own @id`);
    loaded.policies[id] = part;
    (loaded.effects as Map<string, 'permit' | 'forbid'>).set(id, json.json.effect);
    (loaded.annotations as Map<string, Record<string, string>>).set(id, annotations);
  });
  return loaded;
}

function validate(cedar: CedarEngine, policies: SourceText, schema: SourceText): void {
  const parsedSchema = cedar.checkParseSchema(schema.text);
  if (parsedSchema.type === 'failure') throw new ConfigError(`${schema.source} is not a valid Cedar schema:\n  - ${describeErrors(parsedSchema.errors, schema.text, schema.source)}`);
  const answer = cedar.validate({ schema: schema.text, policies: { staticPolicies: policies.text }, validationSettings: { mode: 'strict' } });
  if (answer.type === 'failure') throw new ConfigError(`${policies.source} does not validate against ${schema.source}:\n  - ${describeErrors(answer.errors, policies.text, policies.source)}`);
  if (answer.validationErrors.length > 0) {
    const problems = answer.validationErrors.map((found) => `${describeError(found.error, policies.text, policies.source)} [${found.policyId}]`);
    throw new ConfigError(`${policies.source} does not validate against ${schema.source}:\n  - ${problems.join('\n  - ')}`);
  }
}
