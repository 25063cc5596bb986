/**
 * ConverseStream events → the response Converse would have given (reply.ts reads both), and the
 * text and reasoning deltas to hand on as they arrive.
 *
 *   contentBlockStart {toolUse: {toolUseId, name}}       a call begins (text blocks need no start)
 *   contentBlockDelta {text}                             text            → a `text` delta
 *   contentBlockDelta {reasoningContent: {text}}         reasoning       → a `reasoning` delta
 *   contentBlockDelta {reasoningContent: {signature}}    its signature (kept, never shown)
 *   contentBlockDelta {toolUse: {input}}                 a fragment of the call's JSON input
 *   messageStop {stopReason}, metadata {usage}           the reply's end and its token counts
 *
 * A call's input fragments are joined and parsed as Converse would have: an object when they make
 * JSON, the text as it came when not (a call cut off by max_tokens).
 */
import type { ContentBlock, ConverseStreamOutput, StopReason, TokenUsage } from '@aws-sdk/client-bedrock-runtime';
import type { ModelDelta } from '../../core/ports/model.ts';
import type { ConverseResult } from './reply.ts';
import { asDocument } from './wire.ts';

type BlockInProgress =
  | { kind: 'text'; text: string }
  | { kind: 'toolUse'; toolUseId: string; name: string; input: string }
  | { kind: 'reasoning'; text: string; signature?: string; redacted?: Uint8Array[] };

interface StreamAccumulator {
  /** Takes one event; returns the deltas it carries. */
  add(event: ConverseStreamOutput): ModelDelta[];
  /** True once the stream said the message ended (messageStop). */
  readonly ended: boolean;
  result(): ConverseResult;
}

export function createStreamAccumulator(): StreamAccumulator {
  const blocks = new Map<number, BlockInProgress>();
  let stopReason: StopReason | undefined;
  let usage: TokenUsage | undefined;
  let ended = false;

  const block = <Kind extends BlockInProgress['kind']>(index: number, kind: Kind, create: () => Extract<BlockInProgress, { kind: Kind }>) => {
    const existing = blocks.get(index);
    if (existing?.kind === kind) return existing as Extract<BlockInProgress, { kind: Kind }>;
    const created = create();
    blocks.set(index, created);
    return created;
  };

  return {
    add(event) {
      if (event.contentBlockStart?.start?.toolUse) {
        const { toolUseId = '', name = '' } = event.contentBlockStart.start.toolUse;
        blocks.set(event.contentBlockStart.contentBlockIndex ?? 0, { kind: 'toolUse', toolUseId, name, input: '' });
        return [];
      }
      if (event.contentBlockDelta?.delta) {
        const index = event.contentBlockDelta.contentBlockIndex ?? 0;
        const delta = event.contentBlockDelta.delta;
        if (typeof delta.text === 'string') {
          block(index, 'text', () => ({ kind: 'text', text: '' })).text += delta.text;
          return delta.text === '' ? [] : [{ kind: 'text', text: delta.text }];
        }
        if (delta.toolUse) {
          block(index, 'toolUse', () => ({ kind: 'toolUse', toolUseId: '', name: '', input: '' })).input += delta.toolUse.input ?? '';
          return [];
        }
        if (delta.reasoningContent) {
          const reasoning = block(index, 'reasoning', () => ({ kind: 'reasoning', text: '' }));
          const { text, signature, redactedContent } = delta.reasoningContent;
          if (signature !== undefined) reasoning.signature = (reasoning.signature ?? '') + signature;
          if (redactedContent !== undefined) (reasoning.redacted ??= []).push(redactedContent);
          if (typeof text === 'string' && text !== '') {
            reasoning.text += text;
            return [{ kind: 'reasoning', text }];
          }
        }
        return [];
      }
      if (event.messageStop) {
        stopReason = event.messageStop.stopReason;
        ended = true;
      }
      if (event.metadata?.usage) usage = event.metadata.usage;
      return [];
    },
    get ended() {
      return ended;
    },
    result() {
      const content = [...blocks.entries()].sort(([first], [second]) => first - second).map(([, inProgress]) => finished(inProgress));
      return { output: { message: { role: 'assistant', content } }, stopReason, usage };
    },
  };
}

function finished(inProgress: BlockInProgress): ContentBlock {
  switch (inProgress.kind) {
    case 'text':
      return { text: inProgress.text };
    case 'toolUse':
      return { toolUse: { toolUseId: inProgress.toolUseId, name: inProgress.name, input: asDocument(parsedInput(inProgress.input)) } };
    case 'reasoning':
      if (inProgress.redacted) return { reasoningContent: { redactedContent: Buffer.concat(inProgress.redacted) } };
      return { reasoningContent: { reasoningText: { text: inProgress.text, ...(inProgress.signature === undefined ? {} : { signature: inProgress.signature }) } } };
  }
}

/** An input with no fragments is `{}`, as Converse gives a call without arguments. */
function parsedInput(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
