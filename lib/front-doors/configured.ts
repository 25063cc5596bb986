import { mcpServerFrontDoor, type McpServerDoorSettings } from '#mcp-server-door';
import type { FrontDoor } from '../http/front-door.ts';
import { nativeFrontDoor } from './native/door.ts';
import { openAICompatibleFrontDoor } from './openai-compatible/door.ts';
import { uiStreamFrontDoors } from '#ui-streams';
import type { AuthMode } from '../config/environment.ts';
// Through package.json "imports": a Lambda bundle whose agent.yml leaves A2A off carries a stand-in (infra/bundling.ts).
import { a2aFrontDoor, type A2ASettings } from '#a2a-door';

/** What agent.yml says about the front doors. */
export interface FrontDoorSettings {
  /** agent.yml's `openaiApi`: the OpenAI-compatible front door under /v1; without it /v1 is not served. */
  openaiApi?: { modelId: string };
  /** agent.yml's `uiStreams`: the AI SDK UI and AG-UI doors (docs/ui-streams.md). */
  uiStreams?: boolean;
  /** agent.yml's `mcpServerDoor`: the agent as an MCP server at /mcp, when enabled (its code is left out of the Lambda bundles otherwise). */
  mcpServerDoor?: McpServerDoorSettings;
  /** agent.yml's `a2a`: the A2A front door (the agent card and JSON-RPC at /a2a), served only when enabled. */
  a2a?: A2ASettings & { enabled: boolean };
  /** How the deployment tells callers apart (AUTH_MODE): the A2A card names its security scheme. Absent: none. */
  authMode?: AuthMode;
  /** Under cognito: the user pool's issuer, which the MCP server door names as its authorization server. */
  cognitoIssuer?: string;
  /** Under oidc: the OpenID Connect provider's issuer, named likewise. */
  oidcIssuer?: string;
}

/**
 * The front doors a deployment serves, in the order they are asked whether a request is theirs
 * (lib/http/dispatch.ts). A new door is a folder here and a line below. The native API comes last:
 * it answers every path no other door claims, so an unknown path gets its 404.
 */
export function configuredFrontDoors(settings: FrontDoorSettings): FrontDoor[] {
  return [
    ...(settings.openaiApi ? [openAICompatibleFrontDoor(settings.openaiApi)] : []),
    ...(settings.uiStreams ? uiStreamFrontDoors() : []),
    ...(settings.mcpServerDoor?.enabled ? [mcpServerFrontDoor(settings.mcpServerDoor, protectedResourceOf(settings))] : []),
    ...(settings.a2a?.enabled ? [a2aFrontDoor(settings.a2a, { authMode: settings.authMode ?? 'none' })] : []),
    nativeFrontDoor,
  ];
}

/** Only Cognito and OIDC tokens are OAuth: under iam (SigV4) and none there is no authorization server to name. */
function protectedResourceOf(settings: FrontDoorSettings): { authorizationServer?: string } {
  const issuer = settings.authMode === 'cognito' ? settings.cognitoIssuer : settings.authMode === 'oidc' ? settings.oidcIssuer : undefined;
  return issuer !== undefined ? { authorizationServer: issuer } : {};
}
