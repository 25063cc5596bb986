/**
 * The documentation's links must lead somewhere: every relative link in README.md and docs/*.md
 * names a file that exists and, with an anchor, a heading of that file. Links to other sites are
 * not followed (tests never leave localhost).
 *
 * `node test/support/docs-links.ts` prints the broken ones and exits 1 if there are any;
 * test/unit/docs-links.test.ts runs the same check.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { headingAnchors, markdownLinks } from './markdown.ts';

/** A link that leads nowhere: where it is written, its target, and what is missing. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  problem: string;
}

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

/** README.md and every Markdown page of docs/, relative to the repository's root. */
export function documentationFiles(root: string = REPOSITORY): string[] {
  const docs = join(root, 'docs');
  const pages = existsSync(docs) ? readdirSync(docs).filter((name) => name.endsWith('.md')).sort().map((name) => join('docs', name)) : [];
  return ['README.md', ...pages];
}

/** The broken links of the given Markdown files (paths relative to root). */
export function brokenLinks(root: string = REPOSITORY, files: string[] = documentationFiles(root)): BrokenLink[] {
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (path: string) => {
    let found = anchorsOf.get(path);
    if (!found) anchorsOf.set(path, (found = headingAnchors(readFileSync(path, 'utf8'))));
    return found;
  };
  const broken: BrokenLink[] = [];
  for (const file of files) {
    const source = resolve(root, file);
    for (const { target, line } of markdownLinks(readFileSync(source, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const hash = target.indexOf('#');
      const path = hash === -1 ? target : target.slice(0, hash);
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const destination = path === '' ? source : resolve(dirname(source), decodeURIComponent(path));
      const report = (problem: string) => broken.push({ file, line, target, problem });
      if (!existsSync(destination)) {
        report(`${relative(root, destination)} does not exist`);
      } else if (anchor !== undefined) {
        if (!destination.endsWith('.md') || statSync(destination).isDirectory()) report(`an anchor into ${relative(root, destination)}, which is no Markdown file`);
        else if (!anchors(destination).has(anchor)) report(`${relative(root, destination)} has no heading with the id "${anchor}"`);
      }
    }
  }
  return broken;
}

if (import.meta.main) {
  const broken = brokenLinks();
  for (const link of broken) console.log(`${link.file}:${link.line}: (${link.target}) ${link.problem}`);
  console.log(broken.length === 0 ? `Every relative link of ${documentationFiles().length} files leads somewhere.` : `${broken.length} broken links.`);
  process.exitCode = broken.length === 0 ? 0 : 1;
}
