/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (infra/bundling.ts,
 * FUNCTION_SUBSTITUTES). Lambda hands a function its role's credentials in the environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), and so does `sam local`; the rest
 * of the default chain (profiles, SSO, web identity, the instance metadata service, and the STS
 * and SSO clients they need, about 90 KB) never runs there. Code run from the sources (npm start,
 * tests) keeps the whole chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
