// Design B's fold in one pass over the graph (issue 29): the same result as reach-design-b.ts's walk per
// project (`designBFolds`, the oracle; reach-design-b.test.ts and the bench compare them), at the cost a
// shipped B would pay.
//
// Owns: `designBPass`. Per node, the phantom names its closure requires (a bitset over the names the graph
// holds: a name nothing in the graph is called folds nothing) and its flags (unknown, unread, computed
// require), unioned per strongly connected component in Tarjan's order (every component after the ones it
// reaches); per name, the union over every node of that name; per importer, its names closed under "a
// phantom-resolved node's own names", then the sorted closure digests of every node with those names.
// Invariants: O((V + E) * W) for the bitsets (W = names / 32) plus one sort per importer; reads nothing.

import { createHash } from 'node:crypto';
import type { LockfileSlices } from '../../lib/core/slices/slices.js';
import { type DesignBFolds, indexGraph, type Phantoms, workspaceNames } from './reach-design-b.js';

const [UNKNOWN, UNREAD, DYNAMIC] = [1, 2, 4];

/** Iterative Tarjan: the components, each a list of nodes, in the order they complete (reached ones first). */
function components(edges: readonly (readonly number[])[]): number[][] {
  const n = edges.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const out: number[][] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const frames: [number, number][] = [[root, 0]];
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as [number, number];
      const [node, edge] = frame;
      const next = edges[node]?.[edge];
      if (next !== undefined) {
        frame[1]++;
        if (index[next] === -1) {
          index[next] = low[next] = counter++;
          stack.push(next);
          onStack[next] = 1;
          frames.push([next, 0]);
        } else if (onStack[next]) low[node] = Math.min(low[node] as number, index[next] as number);
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1]?.[0];
      if (parent !== undefined) low[parent] = Math.min(low[parent] as number, low[node] as number);
      if (low[node] !== index[node]) continue;
      const members: number[] = [];
      for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
        onStack[top] = 0;
        members.push(top);
        if (top === node) break;
      }
      out.push(members);
    }
  }
  return out;
}

/** Per node: the bitset of the names its closure requires undeclared, and the OR of its closure's flags. */
function closureBits(sliced: LockfileSlices, ownBits: Uint32Array[], ownFlags: Uint8Array, words: number) {
  const { edges } = sliced.graph;
  const bits: Uint32Array[] = new Array(edges.length);
  const flags = new Uint8Array(edges.length);
  for (const members of components(edges)) {
    const set = new Uint32Array(words);
    let flag = 0;
    const inside = new Set(members);
    for (const node of members) {
      const own = ownBits[node];
      if (own !== undefined) for (let w = 0; w < words; w++) set[w] = (set[w] as number) | (own[w] as number);
      flag |= ownFlags[node] as number;
      for (const next of edges[node] ?? []) {
        if (inside.has(next)) continue;
        const reached = bits[next] as Uint32Array;
        for (let w = 0; w < words; w++) set[w] = (set[w] as number) | (reached[w] as number);
        flag |= flags[next] as number;
      }
    }
    for (const node of members) {
      bits[node] = set;
      flags[node] = flag;
    }
  }
  return { bits, flags };
}

/** Design B's folds for every importer of one revision, in one pass (same result as `designBFolds`). */
export function designBPass(
  sliced: LockfileSlices,
  phantoms: Map<string, Phantoms>,
  lockfileMain: string,
): DesignBFolds {
  const ix = indexGraph(sliced, phantoms, workspaceNames(lockfileMain));
  const { edges } = sliced.graph;
  const names = [...ix.byName.keys()];
  const id = new Map(names.map((name, i) => [name, i]));
  const words = Math.ceil(names.length / 32) || 1;
  const ownBits: Uint32Array[] = new Array(edges.length);
  const ownFlags = new Uint8Array(edges.length);
  for (let node = 0; node < edges.length; node++) {
    const scan = ix.scanOf(node);
    if (scan === undefined) continue;
    if (scan === 'unknown' || scan === 'unread') {
      ownFlags[node] = scan === 'unknown' ? UNKNOWN : UNREAD;
      continue;
    }
    ownFlags[node] = scan.dynamic > 0 ? DYNAMIC : 0;
    const wanted = [...scan.undeclared];
    if (scan.peers.length > 0) {
      const resolved = new Set((edges[node] ?? []).map(ix.nameOf));
      wanted.push(...scan.peers.filter((name) => !resolved.has(name)));
    }
    const set = new Uint32Array(words);
    for (const name of wanted) {
      const bit = id.get(name);
      if (bit !== undefined) set[bit >>> 5] = (set[bit >>> 5] as number) | (1 << (bit & 31));
    }
    ownBits[node] = set;
  }
  const { bits, flags } = closureBits(sliced, ownBits, ownFlags, words);
  return foldImporters(sliced, ix.byName, names, { bits, flags, words });
}

interface Closures {
  readonly bits: Uint32Array[];
  readonly flags: Uint8Array;
  readonly words: number;
}

function foldImporters(
  sliced: LockfileSlices,
  byName: Map<string, number[]>,
  names: string[],
  c: Closures,
): DesignBFolds {
  const { bits, flags, words } = c;
  // Per name: the union of what every node of that name requires, and their flags.
  const nameBits = names.map((name) => {
    const set = new Uint32Array(words);
    for (const node of byName.get(name) ?? []) {
      const reached = bits[node] as Uint32Array;
      for (let w = 0; w < words; w++) set[w] = (set[w] as number) | (reached[w] as number);
    }
    return set;
  });
  const nameFlags = names.map((name) => (byName.get(name) ?? []).reduce((f, node) => f | (flags[node] as number), 0));
  const plain = new Map<string, string | undefined>();
  const computed = new Map<string, string | undefined>();
  const codeless = new Map<string, string | undefined>();
  const [unknownSet, dynamicSet] = [new Set<string>(), new Set<string>()];
  // Many importers close over the same names (every fixture that depends on one package): one digest per set.
  const memo = new Map<string, string | undefined>();
  const subsetDigest = (set: Uint32Array): string | undefined => {
    const key = set.join(',');
    if (memo.has(key)) return memo.get(key);
    const digests = new Set<string>();
    for (let bit = 0; bit < names.length; bit++)
      if (((set[bit >>> 5] as number) >>> (bit & 31)) & 1)
        for (const n of byName.get(names[bit] as string) ?? []) digests.add(sliced.closures[n] ?? '');
    const sorted = [...digests].sort();
    const digest = sorted.length === 0 ? undefined : createHash('sha256').update(sorted.join('\n')).digest('base64');
    memo.set(key, digest);
    return digest;
  };
  for (const [importer, node] of sliced.graph.importers) {
    const set = Uint32Array.from(bits[node] as Uint32Array);
    let flag = flags[node] as number;
    // Close the names: each set bit not yet expanded adds what the nodes of that name require.
    const done = new Uint32Array(words);
    for (let changed = true; changed; ) {
      changed = false;
      for (let w = 0; w < words; w++) {
        let pending = ((set[w] as number) & ~(done[w] as number)) >>> 0;
        while (pending !== 0) {
          const low = (pending & -pending) >>> 0;
          pending = (pending ^ low) >>> 0;
          done[w] = (done[w] as number) | low;
          changed = true;
          const bit = (w << 5) + (31 - Math.clz32(low));
          const more = nameBits[bit] as Uint32Array;
          for (let v = 0; v < words; v++) set[v] = (set[v] as number) | (more[v] as number);
          flag |= nameFlags[bit] as number;
        }
      }
    }
    const subset = subsetDigest(set);
    const [unknown, unread, dynamic] = [flag & UNKNOWN, flag & UNREAD, flag & DYNAMIC].map(Boolean);
    plain.set(importer, unknown || unread ? sliced.pool : subset);
    codeless.set(importer, unknown ? sliced.pool : subset);
    computed.set(importer, unknown || unread || dynamic ? sliced.pool : subset);
    if (unknown || unread) unknownSet.add(importer);
    if (dynamic) dynamicSet.add(importer);
  }
  return { plain, computed, codeless, unknown: unknownSet, dynamic: dynamicSet };
}
