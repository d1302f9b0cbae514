// Which caching runner a wrapped command starts, read from its argv alone.
//
// Owns: recognizing `turbo …`, `npx turbo …`, `pnpm turbo …`, `pnpm exec turbo …`, `nx …`, `npx nx …`,
// `pnpm nx …`, `pnpm pipeline …` (also through `node <path>/pnpm.cjs`), and saying 'none' otherwise.
// Invariants: never reads files or runs anything; `pnpm run <script>` and `npm run <script>` are 'none'
// (the script's body is not known here: `--runner` says it); a wrong guess only costs a listing.

import { basename } from 'node:path';
import type { RunnerName } from './types.js';

/** pnpm's global options that take a separate value (`-C dir`), so the value is not read as the command. */
const PNPM_VALUE_FLAGS = new Set(['-C', '--dir', '-F', '--filter', '--filter-prod', '--reporter', '--loglevel', '--workspace-concurrency', '--stream-prefix']);
const LAUNCHERS = new Set(['npx', 'pnpx', 'bunx', 'yarn', 'pnx']);

function toolName(word: string): string {
  return basename(word).replace(/\.(c?js|mjs|exe|cmd)$/, '');
}

function direct(word: string | undefined): RunnerName | undefined {
  if (word === undefined) return undefined;
  const name = toolName(word);
  if (name === 'turbo') return 'turbo';
  if (name === 'nx') return 'nx';
  return undefined;
}

/** The positionals of `words`, skipping flags (and the values of pnpm's value flags). */
function positionals(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    if (word === '--') break;
    if (word.startsWith('-')) {
      if (PNPM_VALUE_FLAGS.has(word)) i++;
      continue;
    }
    out.push(word);
  }
  return out;
}

function viaPnpm(rest: readonly string[]): RunnerName {
  const [first, second] = positionals(rest);
  if (first === 'pipeline') return 'pnpm-pipeline';
  if (first === 'exec' || first === 'dlx' || first === 'x') return direct(second) ?? 'none';
  return direct(first) ?? 'none';
}

/** The runner the command starts, or 'none' when it is not one lockguard knows (or cannot tell). */
export function detectRunner(argv: readonly string[]): RunnerName {
  let words = [...argv];
  // `node path/to/pnpm.cjs …`, `node node_modules/.bin/turbo …`
  if (words[0] !== undefined && toolName(words[0]) === 'node' && words[1] !== undefined && !words[1].startsWith('-')) words = words.slice(1);
  const [head, ...rest] = words;
  if (head === undefined) return 'none';
  const found = direct(head);
  if (found !== undefined) return found;
  const name = toolName(head);
  if (name === 'pnpm' || name === 'pn') return viaPnpm(rest);
  if (LAUNCHERS.has(name)) {
    const [first] = positionals(rest);
    return direct(first) ?? 'none';
  }
  return 'none';
}
