/**
 * The assistant message a Chat Completions client is shown for a turn, streamed or not.
 *
 * Only the last round's text is the turn's answer (`reply`), but whether a round is the last is
 * known only when its reply has ended, long after its text began to stream: a model may write
 * "Let me look that up." and then call a tool. A chat client shows text as it arrives and cannot
 * take it back, so the message is everything the model wrote to the user, in order:
 *
 *   text of round 1 ─ blank line ─ text of round 3 ─ ... ─ what the reply adds
 *
 * Rounds that wrote nothing add nothing. The reply normally *is* the last text written (nothing to
 * add); when the turn stopped without an answer (approval, round limit, deadline) the reply is the
 * model's last words and then why it stopped, and only the "why" is added. The non-streaming
 * response builds its content the same way, so both carry the same text; the answer alone is in
 * `mcp_agent.reply`.
 */
export class TurnText {
  private written = '';
  private round: number | undefined;
  /** The text of the latest round that wrote any. */
  private roundText = '';

  /** A piece of a round's text: what to send (a blank line first when an earlier round wrote text). */
  add(round: number, text: string): string {
    if (text === '') return '';
    let piece = text;
    if (round !== this.round) {
      if (this.written !== '') piece = `\n\n${text}`;
      this.round = round;
      this.roundText = '';
    }
    this.roundText += text;
    this.written += piece;
    return piece;
  }

  /** At the turn's end: what the reply adds to the text written so far (often nothing). */
  finish(reply: string): string {
    const rest = this.rest(reply);
    this.written += rest;
    return rest;
  }

  /** The whole message. */
  get text(): string {
    return this.written;
  }

  private rest(reply: string): string {
    if (this.written.trim() === '') return reply;
    const last = this.roundText.trim();
    const answer = reply.trimStart();
    if (last !== '' && answer.startsWith(last)) {
      const added = answer.slice(last.length);
      return added.trim() === '' ? '' : added;
    }
    return reply.trim() === '' ? '' : `\n\n${reply}`;
  }
}
