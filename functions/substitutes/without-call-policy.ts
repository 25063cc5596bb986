/**
 * Stands in for the tool policy (`#call-policy`: lib/configured-call-policy.ts, and Cedar's engine
 * with it) in the Lambda bundles of a configuration without `toolPolicy` (infra/bundling.ts,
 * functionSubstitutes). A function that finds a policy configured anyway fails its cold start,
 * saying why: it must never run with a policy it cannot enforce.
 */
import type { CallPolicy } from '../../lib/core/ports/call-policy.ts';

export function configuredCallPolicy(config: { toolPolicy: { cedar?: string } }): CallPolicy | undefined {
  if (config.toolPolicy.cedar === undefined) return undefined;
  throw new Error('bundled without the tool policy: deploy again with toolPolicy.cedar in agent.yml');
}
