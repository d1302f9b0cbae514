// The repository's markdown pages and their relative links, checked without the network: every link names a
// file or folder that exists, and every `#anchor` one of the target page's headings (GitHub's slugs) or an
// explicit `<a id>`.
//
// Invariants: links inside fenced code blocks and inline code are not links (as GitHub renders them);
// absolute URLs (`https:`, `mailto:`) are not checked; reads only the files it is given.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Every README.md under `root` (node_modules, dist and dot folders skipped), as paths relative to it. */
export function markdownPages(root: string): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'dist') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name === 'README.md') pages.push(relative(root, path));
    }
  };
  walk(root);
  return pages.sort();
}

/** The page's text with fenced code blocks blanked and inline code reduced to its bare text. */
function prose(text: string): string {
  return text
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/`+([^`\n]*)`+/g, (_m, code: string) => code.replace(/[[\]()]/g, ' '));
}

/** GitHub's slug of a heading: the rendered text lowercased, punctuation dropped, each space a hyphen. */
export function slugOf(heading: string): string {
  const rendered = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim();
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a page offers: one per heading (a repeated slug gets `-1`, `-2`, …) and each `<a id="…">`. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = slugOf(match[1] ?? '');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1] ?? '');
  return anchors;
}

/** The relative link targets of a page (`[text](target)`), absolute URLs left out. */
export function linksOf(text: string): string[] {
  const links: string[] = [];
  for (const match of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] ?? '';
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push(target);
  }
  return links;
}

/** Every broken relative link of the pages (paths relative to `root`), as `page: target (why)`. */
export function brokenLinks(root: string, pages: readonly string[]): string[] {
  const broken: string[] = [];
  for (const page of pages) {
    const file = resolve(root, page);
    const text = readFileSync(file, 'utf8');
    for (const link of linksOf(text)) {
      const hash = link.indexOf('#');
      const pathPart = hash === -1 ? link : link.slice(0, hash);
      const anchor = hash === -1 ? undefined : decodeURIComponent(link.slice(hash + 1));
      const target = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
      if (relative(root, target).startsWith('..')) broken.push(`${page}: ${link} (leaves the repository)`);
      else if (!existsSync(target)) broken.push(`${page}: ${link} (no such file)`);
      else if (anchor !== undefined) {
        if (!statSync(target).isFile() || !target.endsWith('.md'))
          broken.push(`${page}: ${link} (an anchor into a file that is not markdown)`);
        else if (!anchorsOf(readFileSync(target, 'utf8')).has(anchor))
          broken.push(`${page}: ${link} (no heading or <a id> "${anchor}" there)`);
      }
    }
  }
  return broken;
}
