/**
 * The OAuth client of a remote server with an `oauth` block (the service's own identity): its
 * provider and the transport's authorization, on the MCP SDK's OAuth client. Imported as
 * `#mcp-oauth-client` (package.json "imports"): the Lambda bundles of an agent.yml without such a
 * block carry functions/substitutes/without-mcp-oauth.ts instead, and neither carry nor evaluate
 * the SDK's OAuth client and its metadata schemas (infra/bundling.ts).
 */
export { ServerOAuthProvider } from './provider.ts';
export { serverAuthorization } from './transport.ts';
