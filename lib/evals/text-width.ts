/** Columns a text takes in a terminal: CJK and full-width characters take two (case names are often Chinese). */
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;

export function displayWidth(text: string): number {
  let width = 0;
  for (const character of text) width += WIDE.test(character) ? 2 : 1;
  return width;
}

/** The text padded with spaces to `width` columns, or cut to it with an ellipsis. */
export function fitTo(text: string, width: number): string {
  if (displayWidth(text) <= width) return text + ' '.repeat(width - displayWidth(text));
  let kept = '';
  for (const character of text) {
    if (displayWidth(kept + character) > width - 1) break;
    kept += character;
  }
  return `${kept}…${' '.repeat(width - 1 - displayWidth(kept))}`;
}
