import { describe, expect, it } from 'vitest';
import { currentTraceContext, readTraceContext, withTraceContext } from '../../lib/core/trace-context.ts';

const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('readTraceContext', () => {
  it('takes a W3C traceparent, with its tracestate', () => {
    expect(readTraceContext(VALID, 'vendor=opaque')).toEqual({ traceparent: VALID, tracestate: 'vendor=opaque' });
    expect(readTraceContext(VALID)).toEqual({ traceparent: VALID });
  });

  it('drops a tracestate that could not travel as a header (a line break, too long), keeping the traceparent', () => {
    expect(readTraceContext(VALID, 'vendor=a\r\nx-injected: 1')).toEqual({ traceparent: VALID });
    expect(readTraceContext(VALID, `vendor=${'a'.repeat(600)}`)).toEqual({ traceparent: VALID });
  });

  it.each([
    ['no value', undefined],
    ['not a string', 42],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['the forbidden version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['upper-case hex', VALID.toUpperCase()],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01'],
    ['something else', 'Root=1-5759e988-bd862e3fe1be46a994272793'],
  ])('ignores %s, as W3C says a malformed header is ignored', (_case, value) => {
    expect(readTraceContext(value, 'vendor=opaque')).toBeUndefined();
  });
});

describe('withTraceContext', () => {
  it('is the current context for the work and everything it awaits, and for nothing after', async () => {
    const seen = await withTraceContext({ traceparent: VALID }, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return currentTraceContext();
    });
    expect(seen).toEqual({ traceparent: VALID });
    expect(currentTraceContext()).toBeUndefined();
    expect(withTraceContext(undefined, () => currentTraceContext())).toBeUndefined();
  });
});
