/**
 * DynamoDB's JSON protocol carries binary attribute values (B, BS) as base64 text; the marshalled
 * values hold bytes (Uint8Array). These convert an attribute value, at any depth of its lists and
 * maps, to the wire and back. Every other type travels as it is. (The SDK sends a DataView or
 * ArrayBuffer as an empty B and throws on other typed arrays; their bytes are sent here.)
 */

type WireValue = Record<string, unknown>;

export function toWire(value: WireValue): WireValue {
  if (isBytes(value.B)) return { B: base64(value.B) };
  if (Array.isArray(value.BS)) return { BS: value.BS.map((bytes: ArrayBufferView | ArrayBuffer) => base64(bytes)) };
  if (Array.isArray(value.L)) return { L: value.L.map((item: WireValue) => toWire(item)) };
  if (value.M !== undefined && value.M !== null) return { M: mapValues(value.M as Record<string, WireValue>, toWire) };
  return value;
}

export function fromWire(value: WireValue): WireValue {
  if (typeof value.B === 'string') return { B: bytes(value.B) };
  if (Array.isArray(value.BS)) return { BS: value.BS.map((text: string) => bytes(text)) };
  if (Array.isArray(value.L)) return { L: value.L.map((item: WireValue) => fromWire(item)) };
  if (value.M !== undefined && value.M !== null) return { M: mapValues(value.M as Record<string, WireValue>, fromWire) };
  return value;
}

/** An attribute map (an item, a key, expression values) with each value converted. */
export function mapValues(map: Record<string, WireValue>, convert: (value: WireValue) => WireValue): Record<string, WireValue> {
  const converted: Record<string, WireValue> = {};
  for (const name of Object.keys(map)) converted[name] = convert(map[name]!);
  return converted;
}

/**
 * What the marshaller takes as binary besides Blobs: any typed array or DataView (their bytes, not
 * their elements), or an ArrayBuffer. Anything else would travel as JSON, `{}` or `{"0":1,…}`.
 */
const isBytes = (data: unknown): data is ArrayBufferView | ArrayBuffer => ArrayBuffer.isView(data) || data instanceof ArrayBuffer;

const base64 = (data: ArrayBufferView | ArrayBuffer) =>
  (ArrayBuffer.isView(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(data)).toString('base64');

/** A plain Uint8Array, as the SDK gives binary values. */
function bytes(text: string): Uint8Array {
  const buffer = Buffer.from(text, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
