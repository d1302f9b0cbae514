// Reading a Markdown page as prose: its sentences (code, tables and headings left out), their lengths, and
// where a word is first used. The README's readability tests (test/docs/readme-words.test.ts) use it.
//
// Invariants: pure functions of the page's text; a fenced block is never prose; a link counts as its text.

/**
 * The page with code blanked, every offset kept: fenced blocks become spaces and inline code underscores
 * (one word, matching no term). `word` replaces inline code instead, for counting words.
 */
export function withoutCode(page: string, word?: string): string {
  let fenced = false;
  return page
    .split('\n')
    .map((line) => {
      if (line.startsWith('```')) {
        fenced = !fenced;
        return ' '.repeat(line.length);
      }
      if (fenced) return ' '.repeat(line.length);
      return line.replace(/`[^`]*`/g, (code) => word ?? '_'.repeat(code.length));
    })
    .join('\n');
}

/** The prose of a page: paragraphs and list items, without headings, tables, HTML and code. */
export function proseOf(page: string): string {
  return withoutCode(page, 'CODE')
    .split('\n')
    .filter((line) => !/^\s*(#|\||<)/.test(line))
    .map((line) => (line.trim() === '' ? '\n' : line.replace(/^\s*(?:[-*]|\d+\.)\s+/, '\n')))
    .map((line) => line.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'))
    .join(' ');
}

/** The sentences of a page's prose, each as its words. */
export function sentencesOf(page: string): string[][] {
  return proseOf(page)
    .split(/(?<=[.!?])\s+|\n/)
    .map((sentence) => sentence.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)))
    .filter((words) => words.length > 0);
}

export interface SentenceStats {
  readonly count: number;
  readonly median: number;
  /** The share of sentences over 40 words. */
  readonly over40: number;
  /** Parentheses per 100 words. */
  readonly parensPer100: number;
}

export function sentenceStats(page: string): SentenceStats {
  const sentences = sentencesOf(page);
  const lengths = sentences.map((words) => words.length).sort((a, b) => a - b);
  const words = lengths.reduce((sum, length) => sum + length, 0);
  const parens = (proseOf(page).match(/\(/g) ?? []).length;
  const mid = Math.floor(lengths.length / 2);
  const median = lengths.length % 2 === 1 ? (lengths[mid] ?? 0) : ((lengths[mid - 1] ?? 0) + (lengths[mid] ?? 0)) / 2;
  return {
    count: lengths.length,
    median,
    over40: lengths.filter((length) => length > 40).length / Math.max(1, lengths.length),
    parensPer100: (100 * parens) / Math.max(1, words),
  };
}

/**
 * Where a term is first used outside code: the offset in the page, and whether that use is the text of a link
 * to `anchor`. Forms are matched whole-word and case-insensitively, with an optional plural or past ending.
 */
export function firstUse(
  page: string,
  forms: readonly string[],
  anchor: string,
): { at: number; linked: boolean } | undefined {
  const text = withoutCode(page);
  const pattern = new RegExp(`\\b(?:${forms.map(escapeRegExp).join('|')})(?:s|es|d|ed)?\\b`, 'i');
  const match = pattern.exec(text);
  if (match === null) return undefined;
  const at = match.index;
  const before = text.lastIndexOf('[', at);
  const close = text.indexOf('](', at);
  const linked =
    before !== -1 && close !== -1 && !text.slice(before, close).includes(']') && text.startsWith(`](${anchor})`, close);
  return { at, linked };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
