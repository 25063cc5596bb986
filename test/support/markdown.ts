/**
 * What a link checker needs to know of a Markdown file: the anchors its headings get on GitHub, and
 * the targets of its links. Both skip fenced code blocks (a `# comment` in a shell block is no
 * heading, a `](x)` in a code sample no link) and inline code spans.
 */

/** A link as written: its target (`docs/page.md#anchor`, `#anchor`, `picture.png`) and its line. */
export interface MarkdownLink {
  target: string;
  line: number;
}

interface ProseLine {
  text: string;
  line: number;
}

/** The lines outside fenced code blocks (``` or ~~~, at any indentation: fences sit in list items too). */
function proseLines(markdown: string): ProseLine[] {
  const prose: ProseLine[] = [];
  let fence: { marker: string; length: number } | undefined;
  markdown.split('\n').forEach((text, index) => {
    const fenceLine = /^\s*(`{3,}|~{3,})(.*)$/.exec(text);
    if (fence) {
      const closing = fenceLine?.[1];
      if (closing && closing[0] === fence.marker && closing.length >= fence.length && fenceLine[2]!.trim() === '') fence = undefined;
      return;
    }
    if (fenceLine) {
      fence = { marker: fenceLine[1]![0]!, length: fenceLine[1]!.length };
      return;
    }
    prose.push({ text, line: index + 1 });
  });
  return prose;
}

/** The text GitHub renders for a heading's Markdown: links become their text, code and emphasis marks go. */
function headingText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '');
}

/**
 * GitHub's id for a heading (github-slugger): lower case, everything but letters, marks, numbers,
 * `_`, `-` and spaces removed, each space a `-`. A repeated id gets `-1`, `-2`, … in its file.
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(text);
    if (heading) {
      const slug = headingText(heading[1]!).toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const html of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(html[1]!);
  }
  return anchors;
}

/** Every inline link and image outside code, with its target as written. */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { text, line } of proseLines(markdown)) {
    const withoutCode = text.replace(/`+[^`]*`+/g, '');
    for (const link of withoutCode.matchAll(/\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: link[1]!, line });
  }
  return links;
}
