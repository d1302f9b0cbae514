// A synthetic pnpm v9 lockfile at monorepo scale (default: 1,000 importers, 20,000 packages), following the
// real fixtures' layout: importers with specifier/version pairs and workspace links, `packages` entries
// with integrity, `snapshots` with dependencies (some with peer suffixes, a few cycles).
//
// Deterministic for a seed; writes nothing itself (the caller writes the text where it wants).

import { prng } from '../helpers/prng.js';

export interface GenerateOptions {
  readonly importers?: number;
  readonly packages?: number;
  readonly seed?: number;
}

const integrity = (next: () => number): string => {
  let out = '';
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < 86; i++) out += chars[Math.floor(next() * 64)];
  return `sha512-${out}==`;
};

export function generateLockfile(options: GenerateOptions = {}): string {
  const importerCount = options.importers ?? 1000;
  const packageCount = options.packages ?? 20_000;
  const next = prng(options.seed ?? 42);
  const pick = (n: number): number => Math.floor(next() * n);
  const names = Array.from({ length: packageCount }, (_, i) => (i % 7 === 0 ? `@scope${i % 50}/pkg-${i}` : `pkg-${i}`));
  const versions = names.map(() => `${1 + pick(9)}.${pick(20)}.${pick(10)}`);
  const quote = (key: string): string => (key.startsWith('@') ? `'${key}'` : key);
  const keyOf = (i: number): string => `${names[i]}@${versions[i]}`;
  // Package i depends on a few packages with higher indices (a DAG), and every 500th closes a cycle.
  const deps = names.map((_, i) => {
    const out = new Set<number>();
    const count = i < packageCount - 10 ? pick(5) : 0;
    for (let k = 0; k < count; k++) out.add(i + 1 + pick(Math.min(2000, packageCount - i - 1)));
    if (i % 500 === 499 && i >= 10) out.add(i - 10);
    return [...out].sort((a, b) => a - b);
  });
  const lines: string[] = [
    "lockfileVersion: '9.0'",
    '',
    'settings:',
    '  autoInstallPeers: true',
    '  excludeLinksFromLockfile: false',
    '',
    'importers:',
    '',
  ];
  for (let p = 0; p < importerCount; p++) {
    const id = p === 0 ? '.' : `packages/group-${Math.floor(p / 100)}/project-${p}`;
    lines.push(`  ${id}:`);
    const external = new Set<number>();
    for (let k = 0; k < 8 + pick(12); k++) external.add(pick(Math.floor(packageCount / 2)));
    const sorted = [...external].sort((a, b) => (names[a] as string).localeCompare(names[b] as string));
    lines.push('    dependencies:');
    if (p > 0 && p % 3 === 0) {
      const target = 1 + pick(p - 1 || 1);
      const rel = `../../group-${Math.floor(target / 100)}/project-${target}`;
      lines.push(`      project-${target}:`, '        specifier: workspace:*', `        version: link:${rel}`);
    }
    for (const i of sorted)
      lines.push(
        `      ${quote(names[i] as string)}:`,
        `        specifier: ^${versions[i]}`,
        `        version: ${versions[i]}`,
      );
    lines.push('');
  }
  lines.push('packages:', '');
  const order = names.map((_, i) => i).sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  for (const i of order) {
    lines.push(`  ${quote(keyOf(i))}:`, `    resolution: {integrity: ${integrity(next)}}`);
    if (i % 11 === 0) lines.push("    engines: {node: '>=18'}");
    lines.push('');
  }
  lines.push('snapshots:', '');
  for (const i of order) {
    const list = deps[i] as number[];
    if (list.length === 0) {
      lines.push(`  ${quote(keyOf(i))}: {}`, '');
      continue;
    }
    lines.push(`  ${quote(keyOf(i))}:`, '    dependencies:');
    for (const d of [...list].sort((a, b) => (names[a] as string).localeCompare(names[b] as string)))
      lines.push(`      ${quote(names[d] as string)}: ${versions[d]}`);
    lines.push('');
  }
  return lines.join('\n');
}
