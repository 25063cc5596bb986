import { describe, expect, it } from 'vitest';
import { tracedTool } from '../../lib/extensions/trace/traced-tools.ts';
import { traceTool } from '../../lib/extensions/trace/shape.ts';
import { emptyTrace, TraceBook } from '../../lib/extensions/trace/book.ts';

const schema = () => ({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] });

describe('the tools a trace keeps, from one turn to the next', () => {
  it('gives the same traced tool for a new definition around the same schema object, as each turn makes them', () => {
    const parameters = schema();
    const first = tracedTool({ name: 'add', description: 'Adds', parameters }, 'full');
    const next = tracedTool({ name: 'add', description: 'Adds', parameters, server: 'math' }, 'full');

    expect(next).toBe(first);
    expect(first).toEqual(traceTool({ name: 'add', description: 'Adds', parameters }, 'full'));
  });

  it('converts again when the name, the description or trace.contents differ, or for another schema object', () => {
    const parameters = schema();
    const first = tracedTool({ name: 'add', description: 'Adds', parameters }, 'full');

    expect(tracedTool({ name: 'sum', description: 'Adds', parameters }, 'full').function).toEqual({ name: 'sum', description: 'Adds', parameters });
    expect(tracedTool({ name: 'add', description: 'Adds two numbers', parameters }, 'full').function).toEqual({ name: 'add', description: 'Adds two numbers', parameters });
    expect(tracedTool({ name: 'add', description: 'Adds', parameters }, 'none').function).toEqual({ name: 'add' });
    const equal = tracedTool({ name: 'add', description: 'Adds', parameters: schema() }, 'full');
    expect(equal).not.toBe(first);
    expect(equal).toEqual(first);
  });

  it('pools a kept tool as it would pool a new one: by its JSON, once per trace', () => {
    const parameters = schema();
    const traceOf = (name: string) => {
      const book = new TraceBook(emptyTrace(1, 'full'));
      for (let round = 0; round < 2; round++) {
        const tools = book.traceTools([{ name, description: 'Adds', parameters }], 'full');
        book.addCall({ round: book.nextRound(), startedAt: new Date(0).toISOString(), durationMs: 1 }, { messages: { sent: [], repeated: [], rest: [] }, tools });
      }
      return { snapshot: book.snapshot(), size: book.size() };
    };

    const kept = traceOf('add');
    const again = traceOf('add');
    expect(again.snapshot.tools).toEqual([traceTool({ name: 'add', description: 'Adds', parameters }, 'full')]);
    expect(again.snapshot.rounds.map((round) => round.request!.tools)).toEqual([[0], [0]]);
    expect(again.size).toBe(Buffer.byteLength(JSON.stringify(again.snapshot)));
    expect(again.snapshot.tools[0]).toBe(kept.snapshot.tools[0]);
  });
});
