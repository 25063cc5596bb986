import { describe, expect, it } from 'vitest';
import { TurnText } from '../../lib/front-doors/openai-compatible/turn-text.ts';

/** Feeds rounds of text pieces, then the reply; returns every piece sent and the whole message. */
function play(rounds: Array<[round: number, pieces: string[]]>, reply: string) {
  const text = new TurnText();
  const sent = rounds.flatMap(([round, pieces]) => pieces.map((piece) => text.add(round, piece)));
  sent.push(text.finish(reply));
  return { sent: sent.filter((piece) => piece !== ''), message: text.text };
}

describe('the assistant message of a turn (TurnText)', () => {
  it('is the reply when only the last round wrote text', () => {
    expect(play([[2, ['上海', '今天晴。']]], '上海今天晴。')).toEqual({ sent: ['上海', '今天晴。'], message: '上海今天晴。' });
  });

  it('keeps what a round that then called tools wrote, a blank line before the next round’s text', () => {
    const played = play([[1, ['Let me ', 'check.']], [2, ['Sunny ', 'in Shanghai.']]], 'Sunny in Shanghai.');
    expect(played.sent).toEqual(['Let me ', 'check.', '\n\nSunny ', 'in Shanghai.']);
    expect(played.message).toBe('Let me check.\n\nSunny in Shanghai.');
  });

  it('adds only why the turn stopped when the reply repeats the model’s last words (an approval pause)', () => {
    const reply = 'I will cancel it.\n\nI need your approval before I run batchCancelOrdersByOrderNo (call_1). Approve or decline each call to continue.';
    const played = play([[1, ['I will ', 'cancel it.']]], reply);
    expect(played.message).toBe(reply);
    expect(played.sent.at(-1)).toBe('\n\nI need your approval before I run batchCancelOrdersByOrderNo (call_1). Approve or decline each call to continue.');
  });

  it('is the whole reply when nothing was written (a replayed turn, a round limit without words)', () => {
    expect(play([], 'I stopped after 4 rounds without reaching a final answer.')).toEqual({
      sent: ['I stopped after 4 rounds without reaching a final answer.'],
      message: 'I stopped after 4 rounds without reaching a final answer.',
    });
  });

  it('adds the reply after a blank line when it does not continue the text written (a summary of other phases)', () => {
    expect(play([[1, ['Planning.']]], 'Both cities are sunny.').message).toBe('Planning.\n\nBoth cities are sunny.');
  });

  it('adds nothing for an empty reply or whitespace the model wrote around its text', () => {
    expect(play([[1, ['  Done. ']]], 'Done.').message).toBe('  Done. ');
    expect(play([[1, ['Done.']]], '').message).toBe('Done.');
  });
});
