/**
 * The streamed provider recordings of test/fixtures/llm/ (copied from ../shared/fixtures/llm/), as
 * Server-Sent Events to replay over HTTP exactly as recorded: keep-alive comments, an
 * `event: error` line, `[DONE]` where the recording has it and end of stream where it has not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScriptedEvent, ScriptedStream } from './scripted-openai-server.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/llm/', import.meta.url));
const EXPECTED = fileURLToPath(new URL('../fixtures/llm-streamed-completions.json', import.meta.url));

type Json = Record<string, unknown>;

export interface StreamedRecording {
  /** The recording's path under llm/ (a `#field` names a stream inside a non-streamed fixture). */
  file: string;
  stream: ScriptedStream;
  /** The data payloads in order, as parsed JSON (no comments, no [DONE]). */
  chunks: Json[];
  /**
   * An excerpt quoted in an issue (`sse_chunks_partial`): the provider's stream went on after it,
   * so as recorded it ends cut off, with neither a finish_reason nor [DONE].
   */
  partial: boolean;
}

/**
 * Every recorded stream: each `sse_chunks` (or the partial `sse_chunks_partial` quoted in an issue),
 * and the OpenAI API reference's text-only stream, whose elided middle ("....") is left out.
 */
export function streamedRecordings(): StreamedRecording[] {
  return readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) => {
      const recording = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Json;
      return (['sse_chunks', 'sse_chunks_partial', 'reference_stream_text_only'] as const).flatMap((field) => {
        const entries = recording[field];
        if (!Array.isArray(entries)) return [];
        return [{ ...toRecording(field === 'reference_stream_text_only' ? `${file}#${field}` : file, entries), partial: field === 'sse_chunks_partial' }];
      });
    });
}

function toRecording(file: string, entries: unknown[]): Omit<StreamedRecording, 'partial'> {
  const events: ScriptedEvent[] = [];
  const chunks: Json[] = [];
  let ending: ScriptedStream['ending'] = 'end';
  let eventName: string | undefined;
  for (const entry of entries) {
    if (entry === '[DONE]') {
      ending = 'done';
      break;
    }
    if (typeof entry !== 'object' || entry === null) continue; // the reference's "...." elision
    const record = entry as Json;
    if (typeof record['_sse_comment'] === 'string') {
      const times = typeof record['_repeated'] === 'number' ? record['_repeated'] : 1;
      for (let count = 0; count < times; count += 1) events.push({ raw: record['_sse_comment'] });
      continue;
    }
    if (typeof record['_raw_line'] === 'string') {
      // An `event:` line belongs to the data line that follows it, in one event.
      eventName = record['_raw_line'];
      continue;
    }
    events.push(eventName ? { raw: `${eventName}\ndata: ${JSON.stringify(record)}` } : record);
    eventName = undefined;
    chunks.push(record);
  }
  return { file, stream: { sse: events, ending }, chunks };
}

/** What the provider's non-streaming endpoint gives for the same response (see the file's note). */
export function expectedCompletions(): Record<string, Json> {
  return (JSON.parse(readFileSync(EXPECTED, 'utf8')) as { completions: Record<string, Json> }).completions;
}
