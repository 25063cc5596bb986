/**
 * Stands in for `ajv-formats` in the Lambda bundles (infra/bundling.ts, functionSubstitutes). Only
 * the MCP SDK's default schema validator (AjvJsonSchemaValidator) imports it, and the SDK builds
 * that validator only for a Client given none; lib/adapters/mcp/connect.ts gives every Client ours
 * (lib/adapters/mcp/schema/compile.ts, which leaves formats unchecked on purpose). 10 KB of every
 * bundle otherwise.
 */
export default function addFormats(): never {
  throw new Error('this bundle was built without ajv-formats: an MCP Client must be given the project\'s jsonSchemaValidator (lib/adapters/mcp/connect.ts)');
}
