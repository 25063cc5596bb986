/** GET /v1/models and GET /v1/models/{model}: the agent is the one model this API serves. */
export function modelObject(modelId: string, created: number) {
  return { id: modelId, object: 'model' as const, created, owned_by: 'mcp-agent' };
}

export function modelList(modelId: string, created: number) {
  return { object: 'list' as const, data: [modelObject(modelId, created)] };
}
