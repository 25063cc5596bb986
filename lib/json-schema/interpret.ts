/**
 * A validator for the schemas subset.ts accepts, answering exactly as Ajv compiled with
 * compile.ts's options does (allErrors, formats not validated): the same verdict and the same
 * `errors`, in Ajv's order and words. Ajv generates and compiles JavaScript for each schema, about
 * 9 ms of a cold start for the first one, and its modules take 5 ms more to load; most tool
 * schemas are plain objects of typed fields, which this walks with closures built once per schema.
 *
 * Ajv's order, which the errors follow: a type error first when the type is not checked by a group
 * (below); then const and enum; then the keywords of each type group that the schema uses, in the
 * order number, string, array, object, each run only when the value is of that type. When the
 * schema names one type that has a group the schema uses, the type error is reported in that
 * group's place instead. Within a group Ajv's order is its vocabularies' (keywordsOf below).
 * test/unit/json-schema-interpreter.test.ts compares both on thousands of schemas and values.
 */
import type { ErrorObject } from 'ajv';
import type { JsonObject } from '../core/json.ts';

/** What compileSchema gives its callers: Ajv's shape (a verdict, then `errors`, null when valid). */
export type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

type Check = (data: unknown, path: string, errors: ErrorObject[]) => void;
type Group = 'number' | 'string' | 'array' | 'object';

const GROUPS: readonly Group[] = ['number', 'string', 'array', 'object'];
/** Each group's keywords of the subset, in Ajv's order (format has no code: validateFormats is off). */
const GROUP_KEYWORDS: Record<Group, readonly string[]> = {
  number: ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'format'],
  string: ['maxLength', 'minLength', 'format'],
  array: ['maxItems', 'minItems', 'items'],
  object: ['required', 'additionalProperties', 'properties'],
};
const COMPARISONS: Record<string, { ok: string; fails: (data: number, limit: number) => boolean }> = {
  maximum: { ok: '<=', fails: (data, limit) => data > limit || Number.isNaN(data) },
  minimum: { ok: '>=', fails: (data, limit) => data < limit || Number.isNaN(data) },
  exclusiveMaximum: { ok: '<', fails: (data, limit) => data >= limit || Number.isNaN(data) },
  exclusiveMinimum: { ok: '>', fails: (data, limit) => data <= limit || Number.isNaN(data) },
};

export function interpretSchema(schema: JsonObject): Validator {
  const check = checkOf(schema, '#');
  const validate: Validator = (data: unknown) => {
    const errors: ErrorObject[] = [];
    check(data, '', errors);
    validate.errors = errors.length > 0 ? errors : null;
    return errors.length === 0;
  };
  return validate;
}

function checkOf(schema: unknown, schemaPath: string): Check {
  if (schema === true) return () => {};
  if (schema === false) {
    return (_data, path, errors) => {
      errors.push({ instancePath: path, schemaPath: `${schemaPath}/false schema`, keyword: 'false schema', params: {}, message: 'boolean schema is false' });
    };
  }
  const object = schema as Record<string, unknown>;
  const declared = object.type;
  const types = declared === undefined ? [] : Array.isArray(declared) ? (declared as string[]) : [declared as string];
  const used = GROUPS.filter((group) => GROUP_KEYWORDS[group].some((keyword) => object[keyword] !== undefined));
  const typeInGroup = types.length === 1 && (used as string[]).includes(types[0]!);
  const typeUpFront = types.length > 0 && !typeInGroup;
  const typeError = (path: string): ErrorObject => ({ instancePath: path, schemaPath: `${schemaPath}/type`, keyword: 'type', params: { type: declared }, message: `must be ${String(declared)}` });

  const untyped = [constCheck(object, schemaPath), enumCheck(object, schemaPath)].filter((check) => check !== undefined);
  const groups = used.map((group) => ({ is: IS[group], checks: keywordsOf(group, object, schemaPath), reportsType: typeInGroup && types[0] === group }));
  const matchesType = (data: unknown) => types.some((type) => IS[type as keyof typeof IS]!(data));

  return (data, path, errors) => {
    if (typeUpFront && !matchesType(data)) errors.push(typeError(path));
    for (const check of untyped) check(data, path, errors);
    for (const group of groups) {
      if (group.is(data)) for (const check of group.checks) check(data, path, errors);
      else if (group.reportsType) errors.push(typeError(path));
    }
  };
}

/** Ajv's type tests (strictNumbers is off with strict: false). */
const IS = {
  null: (data: unknown) => data === null,
  boolean: (data: unknown) => typeof data === 'boolean',
  string: (data: unknown) => typeof data === 'string',
  number: (data: unknown) => typeof data === 'number',
  integer: (data: unknown) => typeof data === 'number' && !(data % 1) && !Number.isNaN(data),
  array: (data: unknown) => Array.isArray(data),
  object: (data: unknown) => typeof data === 'object' && data !== null && !Array.isArray(data),
};

function constCheck(schema: Record<string, unknown>, schemaPath: string): Check | undefined {
  if (schema.const === undefined) return undefined;
  const allowedValue = schema.const;
  return (data, path, errors) => {
    if (data !== allowedValue) errors.push({ instancePath: path, schemaPath: `${schemaPath}/const`, keyword: 'const', params: { allowedValue }, message: 'must be equal to constant' });
  };
}

function enumCheck(schema: Record<string, unknown>, schemaPath: string): Check | undefined {
  if (schema.enum === undefined) return undefined;
  const allowedValues = schema.enum as unknown[];
  return (data, path, errors) => {
    if (!allowedValues.includes(data)) errors.push({ instancePath: path, schemaPath: `${schemaPath}/enum`, keyword: 'enum', params: { allowedValues }, message: 'must be equal to one of the allowed values' });
  };
}

function keywordsOf(group: Group, schema: Record<string, unknown>, schemaPath: string): Check[] {
  const checks: Check[] = [];
  for (const keyword of GROUP_KEYWORDS[group]) {
    const value = schema[keyword];
    if (value === undefined) continue;
    const check = keywordCheck(keyword, value, schema, `${schemaPath}/${keyword}`);
    if (check) checks.push(check);
  }
  return checks;
}

function keywordCheck(keyword: string, value: unknown, schema: Record<string, unknown>, schemaPath: string): Check | undefined {
  switch (keyword) {
    case 'maximum':
    case 'minimum':
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
      return limitCheck(keyword, value as number, schemaPath);
    case 'maxLength':
    case 'minLength':
      return countCheck(keyword, value as number, schemaPath, (data) => codePoints(data as string), 'characters');
    case 'maxItems':
    case 'minItems':
      return countCheck(keyword, value as number, schemaPath, (data) => (data as unknown[]).length, 'items');
    case 'items':
      return itemsCheck(value, schemaPath);
    case 'required':
      return requiredCheck(value as string[], schemaPath);
    case 'additionalProperties':
      return additionalCheck(value, schema.properties as Record<string, unknown> | undefined, schemaPath);
    case 'properties':
      return propertiesCheck(value as Record<string, unknown>, schemaPath);
    default:
      return undefined; // format: not validated.
  }
}

function limitCheck(keyword: string, limit: number, schemaPath: string): Check {
  const { ok, fails } = COMPARISONS[keyword]!;
  const message = `must be ${ok} ${limit}`;
  return (data, path, errors) => {
    if (fails(data as number, limit)) errors.push({ instancePath: path, schemaPath, keyword, params: { comparison: ok, limit }, message });
  };
}

function countCheck(keyword: string, limit: number, schemaPath: string, count: (data: unknown) => number, unit: string): Check {
  const most = keyword.startsWith('max');
  const message = `must NOT have ${most ? 'more' : 'fewer'} than ${limit} ${unit}`;
  return (data, path, errors) => {
    const size = count(data);
    if (most ? size > limit : size < limit) errors.push({ instancePath: path, schemaPath, keyword, params: { limit }, message });
  };
}

function itemsCheck(items: unknown, schemaPath: string): Check | undefined {
  if (alwaysValid(items)) return undefined;
  const check = checkOf(items, schemaPath);
  return (data, path, errors) => {
    const array = data as unknown[];
    for (let index = 0; index < array.length; index++) check(array[index], `${path}/${index}`, errors);
  };
}

function requiredCheck(required: string[], schemaPath: string): Check {
  return (data, path, errors) => {
    const object = data as Record<string, unknown>;
    for (const missingProperty of required) {
      if (object[missingProperty] === undefined) {
        errors.push({ instancePath: path, schemaPath, keyword: 'required', params: { missingProperty }, message: `must have required property '${missingProperty}'` });
      }
    }
  };
}

function additionalCheck(additional: unknown, properties: Record<string, unknown> | undefined, schemaPath: string): Check | undefined {
  if (additional !== false && alwaysValid(additional)) return undefined;
  const declared = propertyNames(properties);
  // Ajv looks a name up in the schema's properties past 8 of them, and compares it with each below.
  const isDeclared = declared.length > 8 ? (key: string) => Object.prototype.hasOwnProperty.call(properties, key) : (key: string) => declared.includes(key);
  if (additional === false) {
    return (data, path, errors) => {
      for (const additionalProperty in data as object) {
        if (!isDeclared(additionalProperty)) {
          errors.push({ instancePath: path, schemaPath, keyword: 'additionalProperties', params: { additionalProperty }, message: 'must NOT have additional properties' });
        }
      }
    };
  }
  const check = checkOf(additional, schemaPath);
  return (data, path, errors) => {
    const object = data as Record<string, unknown>;
    for (const key in object) if (!isDeclared(key)) check(object[key], `${path}/${escapePointer(key)}`, errors);
  };
}

function propertiesCheck(properties: Record<string, unknown>, schemaPath: string): Check | undefined {
  const checked = propertyNames(properties)
    .filter((name) => !alwaysValid(properties[name]))
    .map((name) => ({ name, pointer: `/${escapePointer(name)}`, check: checkOf(properties[name], `${schemaPath}/${encodeURIComponent(escapePointer(name))}`) }));
  if (checked.length === 0) return undefined;
  return (data, path, errors) => {
    const object = data as Record<string, unknown>;
    for (const { name, pointer, check } of checked) {
      const value = object[name];
      if (value !== undefined) check(value, path + pointer, errors);
    }
  };
}

/** Ajv skips `__proto__` among a schema's property names. */
const propertyNames = (properties: Record<string, unknown> | undefined) => (properties ? Object.keys(properties).filter((name) => name !== '__proto__') : []);

/** A subschema that can fail nothing: true, or one with annotations only (Ajv compiles no code for it). */
function alwaysValid(schema: unknown): boolean {
  if (typeof schema === 'boolean') return schema;
  return Object.keys(schema as object).every((keyword) => !VALIDATING.has(keyword));
}
const VALIDATING = new Set(['type', 'const', 'enum', ...Object.values(GROUP_KEYWORDS).flat().filter((keyword) => keyword !== 'format')]);

const escapePointer = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

/** Ajv's ucs2length: a string's length in code points, a surrogate pair counting once. */
function codePoints(text: string): number {
  let length = 0;
  let position = 0;
  while (position < text.length) {
    length++;
    const code = text.charCodeAt(position++);
    if (code >= 0xd800 && code <= 0xdbff && position < text.length && (text.charCodeAt(position) & 0xfc00) === 0xdc00) position++;
  }
  return length;
}
