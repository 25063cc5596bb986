/**
 * `#early-start-handover` outside the Lambda bundles: the MCP SDK starts stdio servers through the
 * `cross-spawn` package, which cannot hand over a process started early (early-start.ts), so none
 * is started. The bundles map the alias to functions/substitutes/linux-spawn.ts, which can.
 */
export const takesEarlyStarts = false;
