/** agent.yml `mcpServers`: each MCP server's entry (stdio or remote), its tool policy, client features and OAuth. */

import * as z from 'zod';
import { elicitationPolicy } from './tools.ts';
import { fromText, seconds, stringMap, toolPattern } from './shared.ts';

/** A filesystem root offered to a server: an absolute path, a path relative to agent.yml, or a file:// URI. */
const rootEntry = z.string().min(1, 'a root must not be empty').refine(
  (value) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || value.startsWith('file://'),
  'a root is a path or a file:// URI',
);

/** What the service offers a server as an MCP client (roots, elicitation, sampling, resource reads). */
const clientFeatureFields = {
  /** Declares the roots capability and answers roots/list with these; none: not declared. */
  roots: z.array(rootEntry).optional(),
  /**
   * The model may read this server's resources (resources/read) with the built-in read_resource
   * tool: `true` every URI, or a list of URI patterns (`*` any run of characters); off by default.
   */
  readResources: z.preprocess(fromText, z.union([z.boolean(), z.array(z.string().min(1, 'a URI pattern must not be empty'))])).default(false),
  /** Overrides tools.elicitation for this server. */
  elicitation: elicitationPolicy.optional(),
  /**
   * Lets this server ask the agent's model for completions (sampling/createMessage): `true`
   * answered at once, `ask` each request approved by a person first (the turn pauses); off by default.
   */
  sampling: z.preprocess(fromText, z.union([z.boolean(), z.literal('ask')])).default(false),
};

/** What is offered and what needs a person's approval, per MCP server. */
const toolPolicyFields = {
  /** Only tools matching one of these are offered (default: all). */
  allowTools: z.array(toolPattern).optional(),
  /** Tools matching one of these are never offered, even when allowed. */
  denyTools: z.array(toolPattern).default([]),
  /**
   * `never` (default), `always`, `destructive` (unless the server marks the tool `readOnlyHint:
   * true` or `destructiveHint: false`), or a list of tool patterns.
   */
  requireApproval: z.union([z.enum(['never', 'always', 'destructive']), z.array(toolPattern)]).default('never'),
};

export const stdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: stringMap().default({}),
  cwd: z.string().optional(),
  ...toolPolicyFields,
  ...clientFeatureFields,
});

/** Signing algorithms a private key JWT (RFC 7523) may use; the key's type must fit. */
export const JWT_SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

/**
 * OAuth 2.1 for a remote server, as the MCP authorization specification describes it. Secrets
 * (clientSecret, privateKey) may only be written as `${VAR}` (lib/config/secret-fields.ts checks
 * the file before interpolation); tokens live in the token store, never here.
 */
export const oauthSchema = z
  .strictObject({
    /**
     * `authorization_code`: a person authorizes once per server (`npm run mcp-login -- <server>`),
     * then refresh tokens keep it going; `client_credentials`: machine to machine, no person.
     */
    grant: z.enum(['authorization_code', 'client_credentials']).default('authorization_code'),
    /** A pre-registered client. Without it: a client ID metadata document (clientMetadataUrl), else dynamic registration. */
    clientId: z.string().min(1).optional(),
    clientSecret: z.string().min(1).optional(),
    /** PEM (PKCS#8) for private_key_jwt; `\n` escapes are read as line breaks, for keys kept in one-line variables. */
    privateKey: z.string().min(1).optional(),
    privateKeyAlgorithm: z.enum(JWT_SIGNING_ALGORITHMS).default('RS256'),
    /** The `kid` header of the client assertion, for authorization servers that hold several keys. */
    keyId: z.string().min(1).optional(),
    /** Chosen from the authorization server's metadata when absent (a private key means private_key_jwt). */
    tokenEndpointAuthMethod: z.enum(['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none']).optional(),
    /** Requested as they are; absent, the server's challenge, then its metadata's scopes_supported decide. */
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'a scope is one word of printable ASCII')).optional(),
    /** An HTTPS URL serving this client's metadata document, used as client_id where the server supports it. */
    clientMetadataUrl: z
      .url()
      .refine((value) => /^https:\/\/[^/]+\/./.test(value), 'a client metadata document URL must be https with a path')
      .optional(),
    /** Where the authorization server sends the person back; mcp-login listens there (loopback only). */
    redirectUrl: z.url().default('http://localhost:8976/callback'),
    clientName: z.string().min(1).default('MCP agent service'),
    /**
     * The authorization server (issuer URL) the client credentials belong to: they are then never
     * presented to another one, whatever the MCP server advertises.
     */
    authorizationServer: z.url().optional(),
    /** An access token is renewed this long before it expires, so a request never carries a stale one. */
    refreshBeforeExpirySeconds: seconds().default(60),
  })
  .superRefine((oauth, context) => {
    const problem = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
    const method = oauth.tokenEndpointAuthMethod;
    if ((oauth.clientSecret || oauth.privateKey) && !oauth.clientId) problem('clientId', 'a client secret or private key needs the clientId it belongs to');
    if ((oauth.clientSecret || oauth.privateKey) && !oauth.authorizationServer) {
      problem('authorizationServer', `a ${oauth.clientSecret ? 'client secret' : 'private key'} is only ever presented to the authorization server named here: set it to that server's issuer URL (never to whatever the MCP server advertises)`);
    }
    if (oauth.clientSecret && oauth.privateKey) problem('privateKey', 'give either clientSecret or privateKey, not both');
    if (oauth.privateKey && method && method !== 'private_key_jwt') problem('tokenEndpointAuthMethod', 'a private key is used with private_key_jwt');
    if (method === 'private_key_jwt' && !oauth.privateKey) problem('privateKey', 'private_key_jwt needs a privateKey');
    if (oauth.clientId && method?.startsWith('client_secret') && !oauth.clientSecret) problem('clientSecret', `${method} needs a clientSecret`);
    if (oauth.grant === 'client_credentials') {
      if (!oauth.clientId) problem('clientId', 'client_credentials needs a pre-registered clientId');
      else if (!oauth.clientSecret && !oauth.privateKey) problem('clientSecret', 'client_credentials needs a clientSecret or a privateKey');
      if (oauth.clientMetadataUrl) problem('clientMetadataUrl', 'client metadata documents are for authorization_code clients');
    }
  });

/**
 * Whose identity a remote server's calls carry. `service` (default): the service's own (its
 * headers, or its `oauth` grant), whoever asked. `per-user`: each owner connects their own account
 * at the server's OAuth provider (the `oauth` block's client settings, authorization code with
 * PKCE), and the calls made for them carry their token (docs/users-own-accounts.md).
 */
export const authSchema = z.strictObject({
  mode: z.enum(['service', 'per-user']).default('service'),
});

export const remoteServerSchema = z.strictObject({
  type: z.enum(['http', 'sse']).optional(),
  url: z.url(),
  headers: stringMap().default({}),
  /** OAuth 2.1 (the MCP authorization specification): tokens are obtained, stored and refreshed for this server. */
  oauth: oauthSchema.optional(),
  auth: authSchema.default({ mode: 'service' }),
  ...toolPolicyFields,
  ...clientFeatureFields,
}).superRefine((server, context) => {
  // The transports let a configured header win over the OAuth token: the token would never be sent.
  const authorization = Object.keys(server.headers).find((name) => name.toLowerCase() === 'authorization');
  if (server.oauth && authorization) {
    context.addIssue({ code: 'custom', path: ['headers', authorization], message: 'an Authorization header cannot be combined with oauth, which sends its own' });
  }
  if (server.auth.mode === 'per-user') {
    if (authorization) context.addIssue({ code: 'custom', path: ['headers', authorization], message: 'an Authorization header cannot be combined with auth.mode per-user, which sends each user\'s own token' });
    if (server.oauth?.grant === 'client_credentials') context.addIssue({ code: 'custom', path: ['oauth', 'grant'], message: 'auth.mode per-user connects each user with authorization_code: client_credentials is the service\'s own identity' });
    if (server.type === 'sse') context.addIssue({ code: 'custom', path: ['type'], message: 'auth.mode per-user reaches its server over Streamable HTTP (type http, or no type)' });
  }
});

/** Checked entry by entry in load.ts, so each gets the message of its own kind (stdio or remote). */
export const mcpServersSchema = z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'server names use letters, digits, _ . -'), z.unknown()).default({});
