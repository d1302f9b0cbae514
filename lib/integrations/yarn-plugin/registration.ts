// lockguard's yarn plugin as `yarn plugin import` registers it in `.yarnrc.yml`, and taking that back
// (`lockguard uninstall`).
//
// Measured with yarn 4.18.1: `yarn plugin import <lockguard>/dist/yarn-plugin.cjs` copies the file to
// `.yarn/plugins/lockguard.cjs` and appends, after a blank line, `plugins:` with one list item of
// `checksum`, `path: .yarn/plugins/lockguard.cjs` and `spec` (indented two and four spaces).
// Invariants: pure (text in, text out); only the list item whose `path` is lockguard's goes, and `plugins:`
// with it (and the blank line before it) when it was the only item; anything else is left as it was.

/** Where `yarn plugin import` puts lockguard's plugin. */
export const YARN_PLUGIN_PATH = '.yarn/plugins/lockguard.cjs';

/** The `.yarnrc.yml` text without lockguard's plugin entry; undefined when it has none. */
export function withoutLockguardPlugin(text: string): string | undefined {
  const lines = text.split('\n');
  const header = lines.findIndex((line) => /^plugins:\s*$/.test(line));
  if (header < 0) return undefined;
  let end = header + 1;
  while (end < lines.length && /^\s+\S/.test(lines[end] ?? '')) end += 1;
  const starts: number[] = [];
  for (let index = header + 1; index < end; index += 1) if (/^\s*- /.test(lines[index] ?? '')) starts.push(index);
  const items = starts.map((from, at): [number, number] => [from, starts[at + 1] ?? end]);
  const ours = items.find(([from, to]) =>
    lines.slice(from, to).some((line) => line.replace(/^\s*-?\s*/, '') === `path: ${YARN_PLUGIN_PATH}`),
  );
  if (ours === undefined) return undefined;
  if (items.length > 1) {
    lines.splice(ours[0], ours[1] - ours[0]);
    return lines.join('\n');
  }
  const blankBefore = header > 0 && lines[header - 1] === '' ? 1 : 0;
  lines.splice(header - blankBefore, end - header + blankBefore);
  return lines.join('\n');
}
