// The grep of every output channel the hostile-output tests make (issue 30): stdout, stderr, the GitHub files,
// a dotenv file, the ledger's records and the slice files, for what a lockfile must never put there.
//
// Owns: `HOSTILE` (a terminal escape, a bell, a line break then a forged `::warning::`, U+2028 and U+202E),
// `outputFaults` (what is wrong in one channel's text: a raw control, bidi or separator code point, a line that
// GitHub would read as a workflow command and that is not one of lockguard's own annotations, a line longer than
// `maxLine`), and `ledgerTexts` (every record file under `.lockguard/` but the blobs, which hold the lockfile's
// own bytes by design, and every `.lockguard-slice`).

import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const HOSTILE = '\u001b]0;PWNED\u0007\n::warning::INJECTED\u2028\u202eX';

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point.
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** What is wrong in `text` (empty when nothing); `annotations`: lockguard's own `::error file=` lines allowed. */
export function outputFaults(
  channel: string,
  text: string,
  options: { annotations?: boolean; maxLine?: number } = {},
): string[] {
  const faults: string[] = [];
  const raw = RAW.exec(text);
  if (raw !== null)
    faults.push(`${channel}: raw U+${(raw[0].codePointAt(0) ?? 0).toString(16).padStart(4, '0')} at ${raw.index}`);
  for (const line of text.split('\n')) {
    const own = options.annotations === true && /^::error file=[^\n]*::/.test(line);
    if ((/^\s*::/.test(line) || line.includes('##[')) && !own)
      faults.push(`${channel}: a workflow command: ${line.slice(0, 80)}`);
    if (line.length > (options.maxLine ?? 20_000)) faults.push(`${channel}: a line of ${line.length} characters`);
  }
  return faults;
}

/** Every file under `dir` (links and blobs/ left out), path → text. */
function filesUnder(dir: string, into: Map<string, string>): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    const stats = lstatSync(path);
    if (stats.isDirectory() && name !== 'blobs' && name !== 'node_modules') filesUnder(path, into);
    else if (stats.isFile() && (dir.includes('.lockguard') || name === '.lockguard-slice'))
      into.set(path, readFileSync(path, 'utf8'));
  }
}

/** The ledger's records and the slice files of the workspace at `root`. */
export function ledgerTexts(root: string): Map<string, string> {
  const texts = new Map<string, string>();
  filesUnder(root, texts);
  return texts;
}
