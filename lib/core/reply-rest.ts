/**
 * What a turn's reply adds to the text its last round already streamed. The reply normally is that
 * text (nothing to add); a turn that stopped without an answer (approval, round limit) adds why it
 * stopped. For doors that stream rounds and then close with the reply (AG-UI, the AI SDK's UI stream).
 */
export function replyRest(lastRoundText: string, reply: string): string {
  const last = lastRoundText.trim();
  const answer = reply.trimStart();
  if (last !== '' && answer.startsWith(last)) {
    const added = answer.slice(last.length);
    return added.trim() === '' ? '' : added;
  }
  if (reply.trim() === '') return '';
  return last === '' ? reply : `\n\n${reply}`;
}
