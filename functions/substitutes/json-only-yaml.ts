/**
 * Stands in for the `yaml` package in the Lambda bundles (infra/bundling.ts, FUNCTION_SUBSTITUTES):
 * the build writes agent.yml as agent.json beside each function (infra/bundled-config.ts), and JSON
 * is YAML, so `parse` is JSON.parse. The YAML parser itself (115 KB) stays out of the bundle.
 */
export function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${(error as Error).message}. A Lambda bundle reads its configuration as JSON, the agent.json the build wrote from agent.yml; AGENT_CONFIG must name such a file.`,
      { cause: error },
    );
  }
}
