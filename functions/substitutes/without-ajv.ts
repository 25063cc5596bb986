/**
 * Stands in for `ajv` in the Lambda bundles (infra/bundling.ts, functionSubstitutes). The project's
 * own use of Ajv is beside the function (ajv-compilers-beside.ts); what still imports `ajv` is the
 * MCP SDK's default schema validator (AjvJsonSchemaValidator), which the SDK's Client and Server
 * build only when given no `jsonSchemaValidator`. lib/adapters/mcp/connect.ts gives every Client
 * ours (lib/adapters/mcp/schema/compile.ts), and the functions run no SDK v1 Server. About 135 KB
 * of every bundle otherwise, evaluated on every cold start.
 */
export class Ajv {
  constructor() {
    throw new Error('this bundle was built without Ajv: an MCP Client must be given the project\'s jsonSchemaValidator (lib/adapters/mcp/connect.ts)');
  }
}
export default Ajv;
