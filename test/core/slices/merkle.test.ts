// The Merkle pass against the obvious definition: on random graphs with cycles, changing one node's own
// digest changes exactly the digests of the nodes that reach it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closureDigests } from '../../../lib/core/slices/merkle.js';

function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

function reaches(edges: number[][], from: number, to: number): boolean {
  const seen = new Set([from]);
  const todo = [from];
  while (todo.length > 0) {
    const node = todo.pop() as number;
    if (node === to) return true;
    for (const next of edges[node] ?? []) if (!seen.has(next)) seen.add(next), todo.push(next);
  }
  return false;
}

test('changing one node changes exactly the digests of the nodes that reach it (random graphs with cycles)', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const next = random(seed);
    const n = 5 + Math.floor(next() * 60);
    const edges = Array.from({ length: n }, () =>
      Array.from({ length: Math.floor(next() * 3) }, () => Math.floor(next() * n)),
    );
    const own = Array.from({ length: n }, (_, i) => `node-${i}`);
    const before = closureDigests({ own, edges });
    const target = Math.floor(next() * n);
    const after = closureDigests({ own: own.map((value, i) => (i === target ? `${value}-changed` : value)), edges });
    for (let node = 0; node < n; node++) {
      assert.equal(
        before[node] !== after[node],
        reaches(edges, node, target),
        `seed ${seed}: node ${node} vs target ${target}`,
      );
    }
  }
});

test('an added edge changes the digests of the nodes that reach its source, and only when it adds reach', () => {
  const own = ['a', 'b', 'c', 'd'];
  const before = closureDigests({ own, edges: [[1], [], [3], []] });
  const after = closureDigests({ own, edges: [[1], [2], [3], []] });
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => before[i] !== after[i]),
    [true, true, false, false],
  );
});

test('a cycle of a thousand nodes and a chain of a hundred thousand do not overflow the stack', () => {
  const ring = 1000;
  const cycle = closureDigests({
    own: Array.from({ length: ring }, (_, i) => `r${i}`),
    edges: Array.from({ length: ring }, (_, i) => [(i + 1) % ring]),
  });
  assert.equal(new Set(cycle).size, 1, 'one component, one digest');
  const chain = 100_000;
  const digests = closureDigests({
    own: Array.from({ length: chain }, (_, i) => `c${i}`),
    edges: Array.from({ length: chain }, (_, i) => (i + 1 < chain ? [i + 1] : [])),
  });
  assert.equal(new Set(digests).size, chain);
});
