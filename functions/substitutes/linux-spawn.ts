/**
 * Stands in for `cross-spawn` in the Lambda bundles (infra/bundling.ts, functionSubstitutes): the
 * MCP SDK's stdio transport starts servers with it. cross-spawn rewrites the command only on
 * Windows (shebangs, PATHEXT, cmd.exe quoting) and on every other platform calls
 * `child_process.spawn` unchanged; Lambda runs Linux, so its 6 KB (with `which`, `isexe`,
 * `path-key`, `shebang-command`) would never run there.
 *
 * It is also `#early-start-handover`: a server process started while the function loaded
 * (functions/early-mcp-servers.ts) is handed to the transport that starts the same one.
 */
import { spawn as spawnProcess, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { takeEarlyStarted } from '../../lib/adapters/mcp/early-start.ts';

export const takesEarlyStarts = true;

export function spawn(command: string, args: readonly string[] = [], options: SpawnOptions = {}): ChildProcess {
  return takeEarlyStarted(command, args, options) ?? spawnProcess(command, args, options);
}

export default spawn;
