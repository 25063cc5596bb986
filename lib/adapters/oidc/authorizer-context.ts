import type { JWTPayload } from 'jose';

/** What an API Gateway Lambda authorizer may put in its context: flat values only. */
export type AuthorizerContext = Record<string, string | number | boolean>;

/**
 * A verified token's claims as an API Gateway authorizer context, which takes only strings,
 * numbers and booleans: a list of strings (`groups`, Entra ID's `roles`) becomes "a,b" (what
 * lib/adapters/cedar's groupsOf reads, as it reads Cognito's claims through API Gateway), anything
 * else nested becomes its JSON. The deployed authorizer and npm start both build it here, so a
 * request carries the same claims in either.
 */
export function authorizerContextOf(claims: JWTPayload): AuthorizerContext {
  const context: AuthorizerContext = {};
  for (const [name, value] of Object.entries(claims)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') context[name] = value;
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string' && !item.includes(','))) context[name] = value.join(',');
    else context[name] = JSON.stringify(value);
  }
  return context;
}
