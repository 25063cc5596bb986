/** A JSON object, as a type: what opaque data (tool arguments, extension state, provider data) is. */
export type JsonObject = { [key: string]: unknown };

/** A JSON object (not null, not an array): what parsed bodies and wire replies are checked against. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `Unknown field "x"` / `Unknown fields "x", "y"`, for the strict checks of bodies and payloads. */
export function unknownFieldsText(fields: readonly string[]): string {
  return `Unknown field${fields.length > 1 ? 's' : ''} ${fields.map((field) => `"${field}"`).join(', ')}`;
}
