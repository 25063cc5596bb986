import { AgentInterface, type AgentCard } from '@a2a-js/sdk';

/**
 * The same card in A2A v0.3's shape, for clients that ask without an `A2A-Version` header (or with
 * 0.3), as the SDK's own card handler answers them: `url` and `preferredTransport` name the
 * JSON-RPC endpoint, security schemes are OpenAPI-style, and the v1.0 interfaces ride along as
 * `supportedInterfaces` for readers of either version.
 */
export function legacyAgentCard(card: AgentCard) {
  const endpoint = card.supportedInterfaces[0]!.url;
  const schemes = Object.fromEntries(
    Object.entries(card.securitySchemes).map(([name, { scheme }]) => {
      const http = scheme?.$case === 'httpAuthSecurityScheme' ? scheme.value : undefined;
      return [name, { type: 'http', scheme: http?.scheme ?? '', ...(http?.bearerFormat ? { bearerFormat: http.bearerFormat } : {}), description: http?.description ?? '' }];
    }),
  );
  return {
    protocolVersion: '0.3.0',
    name: card.name,
    description: card.description,
    url: endpoint,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url: endpoint, transport: 'JSONRPC' }],
    version: card.version,
    capabilities: { streaming: card.capabilities?.streaming ?? false, pushNotifications: false, stateTransitionHistory: false },
    securitySchemes: schemes,
    security: card.securityRequirements.map((requirement) => Object.fromEntries(Object.keys(requirement.schemes).map((name) => [name, []]))),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ id, name, description, tags, examples }) => ({ id, name, description, tags, examples })),
    supportedInterfaces: card.supportedInterfaces.map((entry) => AgentInterface.toJSON(entry)),
  };
}
