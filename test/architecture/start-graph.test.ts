// What a command initialises when it starts: the modules its own module reaches through static imports and
// re-exports (`import type` and dynamic import() excluded: a bundle initialises those only when asked). The
// commands that run on every CI job and before every save (verify, snapshot, key, status) must not reach the
// runner registry, which initialises every runner adapter (about 65 modules): once they did, through a helper
// taken from the runners' barrel (cli/guard-words.ts), and each paid it on every start (callgrind: about 4 M
// instructions of verify's 144 M with the code cache).
// Reads the TypeScript sources, as layers.test.ts does.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const LIB = fileURLToPath(new URL('../../../lib/', import.meta.url));
const REGISTRY = join(LIB, 'integrations', 'runners', 'registry.ts');

/**
 * The specifiers a module initialises at start: static imports and re-exports, but `import type` (an import
 * whose every name is `type X` is counted: it can only make the check stricter).
 */
function startImports(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
  const out: string[] = [];
  for (const match of code.matchAll(/\b(import|export)\s+(type\s+)?([\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/g)) {
    if (match[2] !== undefined) continue;
    out.push(match[4] as string);
  }
  return out;
}

/** The chain of files from `start` to `target` through start imports, or undefined when it is not reached. */
function chainTo(start: string, target: string): string[] | undefined {
  const parent = new Map<string, string | undefined>([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const spec of startImports(text)) {
      if (!spec.startsWith('.')) continue;
      const next = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      if (parent.has(next)) continue;
      parent.set(next, file);
      queue.push(next);
    }
  }
  if (!parent.has(target)) return undefined;
  const chain: string[] = [];
  for (let at: string | undefined = target; at !== undefined; at = parent.get(at)) chain.unshift(relative(LIB, at));
  return chain;
}

test('verify, snapshot, key and status start without the runner registry (every adapter)', () => {
  for (const command of ['verify', 'snapshot', 'key', 'status']) {
    const chain = chainTo(join(LIB, 'cli', 'commands', `${command}.ts`), REGISTRY);
    assert.equal(chain, undefined, `${command} reaches the registry: ${chain?.join(' -> ')}`);
  }
  // The check can fail: run does reach it (it guards the runners' caches).
  assert.ok(chainTo(join(LIB, 'cli', 'commands', 'run.ts'), REGISTRY), 'run reaches the registry');
});
