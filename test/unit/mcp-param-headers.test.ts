/**
 * SEP-2243's custom headers (lib/adapters/mcp/stateless/param-headers.ts): which `x-mcp-header`
 * declarations a tool may make, and how argument values are written as Mcp-Param-* headers.
 */
import { describe, expect, it } from 'vitest';
import { headerParametersOf, headerValue, paramHeaders } from '../../lib/adapters/mcp/stateless/param-headers.ts';

const declaring = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe('headerParametersOf', () => {
  it('finds declarations on string, integer and boolean properties, nested ones through properties too', () => {
    const schema = declaring({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      priority: { type: 'integer', 'x-mcp-header': 'Priority' },
      target: { type: 'object', properties: { dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } } },
      query: { type: 'string' },
    });

    expect(headerParametersOf(schema)).toEqual([
      { path: ['region'], header: 'Mcp-Param-Region' },
      { path: ['priority'], header: 'Mcp-Param-Priority' },
      { path: ['target', 'dryRun'], header: 'Mcp-Param-Dry-Run' },
    ]);
  });

  it('finds none in a schema without declarations, and reads a property named x-mcp-header as a name', () => {
    expect(headerParametersOf(declaring({ 'x-mcp-header': { type: 'string' } }))).toEqual([]);
  });

  it.each([
    ['an empty name', declaring({ value: { type: 'string', 'x-mcp-header': '' } }), /non-empty string/],
    ['a name that is not a string', declaring({ value: { type: 'string', 'x-mcp-header': 7 } }), /non-empty string/],
    ['a space', declaring({ value: { type: 'string', 'x-mcp-header': 'My Region' } }), /not a valid HTTP header name/],
    ['a colon', declaring({ value: { type: 'string', 'x-mcp-header': 'Region:Primary' } }), /not a valid HTTP header name/],
    ['non-ASCII', declaring({ value: { type: 'string', 'x-mcp-header': 'Région' } }), /not a valid HTTP header name/],
    ['a control character', declaring({ value: { type: 'string', 'x-mcp-header': 'Region\t1' } }), /not a valid HTTP header name/],
    ['an object', declaring({ data: { type: 'object', 'x-mcp-header': 'Data' } }), /only on string, integer and boolean parameters, not object/],
    ['an array', declaring({ items: { type: 'array', items: { type: 'string' }, 'x-mcp-header': 'Items' } }), /not array/],
    ['a number', declaring({ score: { type: 'number', 'x-mcp-header': 'Score' } }), /not number/],
    ['null', declaring({ nil: { type: 'null', 'x-mcp-header': 'Nil' } }), /not null/],
    ['no single type', declaring({ either: { type: ['string', 'integer'], 'x-mcp-header': 'Either' } }), /not one without a single type/],
    ['the same name twice', declaring({ a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'Region' } }), /b: .*already declared as "Region"/],
    ['names differing in case', declaring({ a: { type: 'string', 'x-mcp-header': 'MyField' }, b: { type: 'string', 'x-mcp-header': 'myfield' } }), /already declared as "MyField"/],
    ['a declaration under items', declaring({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }), /reached through "properties" alone/],
    ['a declaration under anyOf', { type: 'object', anyOf: [declaring({ a: { type: 'string', 'x-mcp-header': 'A' } })] }, /reached through "properties" alone/],
    ['a declaration in $defs', { type: 'object', $defs: { region: { type: 'string', 'x-mcp-header': 'Region' } }, properties: { region: { $ref: '#/$defs/region' } } }, /reached through "properties" alone/],
    ['a declaration on the schema itself', { type: 'object', 'x-mcp-header': 'Root' }, /the schema itself/],
  ])('refuses %s', (_case, schema, reason) => {
    const result = headerParametersOf(schema);

    expect(result).toEqual({ error: expect.stringMatching(reason) });
  });
});

describe('headerValue', () => {
  const base64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

  it.each([
    ['printable ASCII as it is', 'us-west1', 'us-west1'],
    ['inner spaces as they are', 'us west 1', 'us west 1'],
    ['an empty string as it is', '', ''],
    ['non-ASCII in Base64', 'Hello, 世界', base64('Hello, 世界')],
    ['leading and trailing spaces in Base64', ' padded ', base64(' padded ')],
    ['a trailing space in Base64', 'us-west1 ', base64('us-west1 ')],
    ['a tab in Base64', '\tindented', base64('\tindented')],
    ['line breaks in Base64', 'line1\r\nline2', base64('line1\r\nline2')],
    ['a value that looks like the sentinel in Base64', '=?base64?abc?=', base64('=?base64?abc?=')],
  ])('writes %s', (_case, value, expected) => {
    expect(headerValue(value)).toBe(expected);
  });

  it('writes integers in decimal and booleans as true and false', () => {
    expect([headerValue(42), headerValue(-7), headerValue(true), headerValue(false)]).toEqual(['42', '-7', 'true', 'false']);
  });

  it('writes nothing for null, objects, arrays, and numbers a header cannot carry exactly', () => {
    expect([null, undefined, { a: 1 }, ['a'], Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60].map(headerValue)).toEqual(Array(7).fill(undefined));
  });
});

describe('paramHeaders', () => {
  it('gives one header per declared argument present, nested ones included, and leaves out null and absent ones', () => {
    const declared = [
      { path: ['region'], header: 'Mcp-Param-Region' },
      { path: ['verbose'], header: 'Mcp-Param-Verbose' },
      { path: ['priority'], header: 'Mcp-Param-Priority' },
      { path: ['target', 'dryRun'], header: 'Mcp-Param-Dry-Run' },
    ];

    expect(paramHeaders(declared, { region: 'eu', verbose: null, target: { dryRun: true }, query: 'x' })).toEqual([
      ['Mcp-Param-Region', 'eu'],
      ['Mcp-Param-Dry-Run', 'true'],
    ]);
  });
});
