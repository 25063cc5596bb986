import type { AgentCard, AgentSkill, SecurityScheme } from '@a2a-js/sdk';
import type { AuthMode } from '../../config/environment.ts';
import type { HttpRequest } from '../../http/types.ts';
import { JSON_RPC_PATH } from './routes.ts';

/** agent.yml's `a2a`, as lib/config/schema.ts reads it. */
export interface A2ASettings {
  name: string;
  description: string;
  /** The public base URL (a custom domain); absent, the one the card was asked for by. */
  url?: string;
  skills?: Array<{ id: string; name: string; description: string; tags: string[]; examples: string[] }>;
}

/** What the card says besides agent.yml: how the deployment tells callers apart. */
export interface CardContext {
  authMode: AuthMode;
}

/** The agent's version on its card: the protocol surface this door offers. */
const CARD_VERSION = '1.0.0';
/** What a message may carry and a task gives back: text, and JSON data parts (decisions, the turn result). */
const MODES = ['text/plain', 'application/json'];

/**
 * The agent card (A2A v1.0, the SDK's type): agent.yml's name, description and skills; one JSON-RPC
 * endpoint, offered in protocol versions 1.0 and 0.3; streaming, no push notifications; and the
 * deployment's security scheme (securityScheme, below).
 */
export function agentCard(settings: A2ASettings, context: CardContext, request: HttpRequest): AgentCard {
  const endpoint = `${baseUrl(settings, request)}${JSON_RPC_PATH}`;
  const scheme = securityScheme(context.authMode);
  const skills: AgentSkill[] = (settings.skills ?? [{ id: 'ask', name: 'Ask', description: settings.description, tags: [], examples: [] }]).map((skill) => ({
    ...skill,
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  }));
  return {
    name: settings.name,
    description: settings.description,
    supportedInterfaces: ['1.0', '0.3'].map((protocolVersion) => ({ url: endpoint, protocolBinding: 'JSONRPC', tenant: '', protocolVersion })),
    provider: undefined,
    version: CARD_VERSION,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: scheme ? { [scheme.name]: scheme.scheme } : {},
    securityRequirements: scheme ? [{ schemes: { [scheme.name]: { list: [] } } }] : [],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills,
    signatures: [],
  };
}

/**
 * What a caller must send, as API Gateway checks it: nothing (authMode none, and npm start);
 * SigV4-signed requests (iam), which A2A has no scheme of its own for, so an HTTP scheme named as
 * the Authorization header names it; or a Cognito user pool ID token (cognito) or the OpenID Connect
 * provider's token (oidc) as a bearer token.
 */
function securityScheme(authMode: AuthMode): { name: string; scheme: SecurityScheme } | undefined {
  if (authMode === 'none') return undefined;
  if (authMode === 'iam') {
    return {
      name: 'sigv4',
      scheme: { scheme: { $case: 'httpAuthSecurityScheme', value: { scheme: 'AWS4-HMAC-SHA256', bearerFormat: '', description: 'AWS Signature Version 4 (IAM): sign every request for the execute-api service with credentials allowed to invoke the API.' } } },
    };
  }
  if (authMode === 'oidc') {
    return {
      name: 'oidc',
      scheme: { scheme: { $case: 'httpAuthSecurityScheme', value: { scheme: 'bearer', bearerFormat: 'JWT', description: "The deployment's OpenID Connect provider's token (ID or access token) in the Authorization header." } } },
    };
  }
  return {
    name: 'cognito',
    scheme: { scheme: { $case: 'httpAuthSecurityScheme', value: { scheme: 'bearer', bearerFormat: 'JWT', description: 'A Cognito user pool ID token in the Authorization header.' } } },
  };
}

/** agent.yml's url, or the scheme, host and stage the client used to reach this request. */
function baseUrl(settings: A2ASettings, request: HttpRequest): string {
  if (settings.url) return settings.url.replace(/\/+$/, '');
  const protocol = request.headers['x-forwarded-proto']?.split(',')[0]?.trim() || 'http';
  const host = request.headers.host ?? 'localhost';
  return `${protocol}://${host}${request.basePath ?? ''}`;
}
