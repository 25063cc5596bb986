/**
 * JSON as Cedar values. Cedar has no null and no floating point: its numbers are Long (64-bit
 * integers) and the `decimal` extension (at most 4 digits after the point). So:
 *
 *   declared "integer"  → Long
 *   declared "number"   → decimal, always (100 → decimal("100.0000")), so one argument has one type
 *   undeclared number   → Long when whole, else decimal
 *   a number neither can hold exactly (more than 4 decimals, beyond the range)
 *                       → its text, a String: any comparison with it is a Cedar error, and a forbid
 *                         that errors forbids (cedar-policy.ts), so it cannot slip past a limit
 *   null                → left out (`context.arguments has x` is false)
 *   array → Set, object → Record (typed by `items` and `properties` where the schema declares them)
 */
import type { CedarValueJson } from '@cedar-policy/cedar-wasm/web';
import type { JsonObject } from '../../core/json.ts';

/** decimal's range: ±922337203685477.5807. */
const DECIMAL_LIMIT = 922_337_203_685_477;

export function cedarRecord(value: JsonObject, schema: JsonObject | undefined): Record<string, CedarValueJson> {
  const properties = (schema?.properties as JsonObject | undefined) ?? {};
  const record: Record<string, CedarValueJson> = {};
  for (const [key, item] of Object.entries(value)) {
    const mapped = cedarValue(item, properties[key] as JsonObject | undefined);
    if (mapped !== undefined) record[key] = mapped;
  }
  return record;
}

export function cedarValue(value: unknown, schema: JsonObject | undefined): CedarValueJson | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') return cedarNumber(value, declaredType(schema));
  if (Array.isArray(value)) {
    const items = schema?.items as JsonObject | undefined;
    return value.map((item) => cedarValue(item, items)).filter((item) => item !== undefined);
  }
  if (typeof value === 'object') return cedarRecord(value as JsonObject, schema);
  return undefined;
}

function cedarNumber(value: number, declared: 'integer' | 'number' | undefined): CedarValueJson {
  const whole = Number.isSafeInteger(value);
  if (declared === 'integer' || (declared === undefined && whole)) return whole ? value : String(value);
  if (!Number.isFinite(value) || Math.abs(value) > DECIMAL_LIMIT) return String(value);
  const fixed = value.toFixed(4);
  return Number(fixed) === value ? { __extn: { fn: 'decimal', arg: fixed } } : String(value);
}

function declaredType(schema: JsonObject | undefined): 'integer' | 'number' | undefined {
  const type = schema?.type;
  const types = Array.isArray(type) ? type : [type];
  if (types.includes('integer') && !types.includes('number')) return 'integer';
  if (types.includes('number')) return 'number';
  return undefined;
}

/** A claim of groups as a list: an array, or API Gateway's text ("a,b", "[a b]"). */
export function groupsOf(claims: JsonObject): string[] {
  const value = claims.groups ?? claims['cognito:groups'];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  if (typeof value !== 'string') return [];
  return value.replace(/^\[|\]$/g, '').split(/[\s,]+/).filter(Boolean);
}
