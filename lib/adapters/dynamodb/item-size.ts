/**
 * DynamoDB's size of an item as the document client would write it, following the published
 * rules: attribute names and strings count their UTF-8 bytes, binaries their bytes, maps and lists
 * 3 bytes plus 1 per element. Numbers count their upper bound (21 bytes), so the result is never
 * below what DynamoDB measures.
 */
export function itemSizeBytes(item: Readonly<Record<string, unknown>>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value !== undefined) bytes += Buffer.byteLength(name, 'utf8') + valueBytes(value);
  }
  return bytes;
}

const MAX_NUMBER_BYTES = 21;

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint') return MAX_NUMBER_BYTES;
  if (typeof value === 'boolean' || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) return value.reduce<number>((sum, element) => sum + 1 + valueBytes(element), 3);
  if (typeof value === 'object') return 3 + itemSizeBytes(value as Record<string, unknown>) + Object.keys(value).length;
  return 0;
}
