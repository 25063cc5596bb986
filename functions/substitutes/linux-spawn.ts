/**
 * Stands in for `cross-spawn` in the Lambda bundles (infra/bundling.ts, functionSubstitutes): the
 * MCP SDK's stdio transport starts servers with it. cross-spawn rewrites the command only on
 * Windows (shebangs, PATHEXT, cmd.exe quoting) and on every other platform calls
 * `child_process.spawn` unchanged; Lambda runs Linux, so its 6 KB (with `which`, `isexe`,
 * `path-key`, `shebang-command`) would never run there.
 */
import { spawn } from 'node:child_process';

export default spawn;
export { spawn };
