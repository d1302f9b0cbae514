// yarn berry's yarn.lock (yarn 2+, `__metadata` version 4 and later) lowered to the slice graph.
//
// Owns: a text index over the fixed layout yarn writes (syml: a key line at column 0 listing the entry's
// descriptors, `  field: value` lines, `    name: range` under `dependencies:`), and the lowering.
// Each entry is one node; its descriptors (`name@npm:^1.0.0`, `a@workspace:*`, `x@patch:...`) all name it.
// Workspaces are the entries whose `resolution` is `<name>@workspace:<folder>`: the importers ('.' for
// the root). A dependency `name: range` names the descriptor `name@range` (older lockfiles, v4-v6,
// write the range without yarn's default `npm:` protocol: `name@npm:range` is tried next); a descriptor
// the lockfile lacks becomes a leaf, so the slice still changes when the reference does.
// Edges: `dependencies` (for workspaces yarn merges devDependencies into it). `peerDependencies` are no
// edges: yarn satisfies a peer from the dependent's parent, which reaches the provider itself; their
// ranges are in the entry's text.
// THE YARN BERRY SLICE: a node's own content is its entry's exact text (descriptors, version, resolution,
// dependencies, peerDependencies, dependenciesMeta, bin, checksum, conditions, languageName, linkType);
// a workspace's also folds the `__metadata` block (the lockfile version and cacheKey change every checksum).
// Invariants: one pass over the lines, no YAML parse; the only failure is ERR_LOCKGUARD_BROKEN_LOCKFILE
// naming the path and line, never echoing contents.

import { LockguardError } from '../errors.js';
import type { LoweredGraph, NodeLabel } from './pnpm-graph.js';

export interface YarnEntry {
  readonly descriptors: readonly string[];
  /** The entry's exact lines, joined by "\n". */
  readonly text: string;
  readonly resolution: string;
  readonly deps: readonly (readonly [name: string, range: string])[];
  /** The line the entry starts on (1-based), for errors. */
  readonly line: number;
}

export interface YarnBerryIndex {
  readonly metadata: string;
  readonly entries: readonly YarnEntry[];
}

function broken(path: string, line: number, reason: string): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_BROKEN_LOCKFILE', `The lockfile at "${path}" is broken: ${reason} (line ${line}).`, {
    path,
    hint: 'Restore it (git checkout -- yarn.lock) or let yarn rewrite it (yarn install).',
  });
}

/** A syml scalar as yarn writes it: "double-quoted" (JSON escapes) or plain. */
export function scalar(raw: string): string {
  if (raw.charCodeAt(0) !== 34) return raw;
  if (!raw.includes('\\')) return raw.slice(1, -1);
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw.slice(1, -1);
  }
}

/** `key: value` at a given indentation -> [key, raw value]; a quoted key may hold `: `. */
function splitField(body: string): [string, string] | undefined {
  let end: number;
  if (body.charCodeAt(0) === 34) {
    end = 1;
    while (end < body.length && body.charCodeAt(end) !== 34) end += body.charCodeAt(end) === 92 ? 2 : 1;
    end++;
    if (body.charCodeAt(end) !== 58) return undefined;
  } else {
    end = body.indexOf(':');
    if (end === -1) return undefined;
  }
  return [scalar(body.slice(0, end)), body.slice(end + 1).trim()];
}

/** The descriptors of a key line (without its final `:`): `"a@npm:^1, a@npm:^1.2"` or `a@npm:^1`. */
export function keyDescriptors(key: string): string[] {
  return scalar(key).split(', ');
}

/** Read a berry yarn.lock's text into entries. `path` only names the file in errors. */
export function indexYarnBerry(source: string, path: string): YarnBerryIndex {
  const text = source.includes('\r\n') ? source.replaceAll('\r\n', '\n') : source;
  const entries: YarnEntry[] = [];
  let metadata = '';
  let lineNo = 0;
  let at = 0;
  const lineEnd = (from: number): number => {
    const nl = text.indexOf('\n', from);
    return nl === -1 ? text.length : nl;
  };
  while (at < text.length) {
    let end = lineEnd(at);
    lineNo++;
    const first = text.charCodeAt(at);
    if (end === at || first === 35) {
      at = end + 1;
      continue;
    }
    if (first === 32) throw broken(path, lineNo, 'an indented line outside any entry');
    if (text.charCodeAt(end - 1) !== 58) throw broken(path, lineNo, 'an entry key that does not end with ":"');
    const start = at;
    const startLine = lineNo;
    const keyLine = text.slice(at, end - 1);
    let resolution = '';
    const deps: [string, string][] = [];
    let inDeps = false;
    // Body: every following line that starts with a space.
    for (at = end + 1; at < text.length && text.charCodeAt(at) === 32; at = end + 1) {
      end = lineEnd(at);
      lineNo++;
      if (text.charCodeAt(at + 2) !== 32) {
        inDeps = end - at === 15 && text.startsWith('  dependencies:', at);
        if (text.startsWith('  resolution: ', at)) resolution = scalar(text.slice(at + 14, end).trim());
        continue;
      }
      if (!inDeps || text.charCodeAt(at + 4) === 32) continue;
      const pair = splitField(text.slice(at + 4, end));
      if (pair === undefined) throw broken(path, lineNo, 'a dependency line without "name: range"');
      deps.push([pair[0], scalar(pair[1])]);
    }
    const blockEnd = Math.min(at - 1, text.length);
    if (keyLine === '__metadata') metadata = text.slice(start, blockEnd);
    else entries.push({ descriptors: keyDescriptors(keyLine), text: text.slice(start, blockEnd), resolution, deps, line: startLine });
  }
  if (metadata === '') throw broken(path, 1, 'it has no __metadata block');
  return { metadata, entries };
}

/** `name@range` -> [name, range]; scoped names keep their `@`. */
export function splitDescriptor(descriptor: string): [string, string] {
  const at = descriptor.indexOf('@', 1);
  return at === -1 ? [descriptor, ''] : [descriptor.slice(0, at), descriptor.slice(at + 1)];
}

export function lowerYarnBerry(index: YarnBerryIndex): LoweredGraph {
  const own: string[] = [];
  const edges: number[][] = [];
  // Package labels are computed on demand (only diffs need them): undefined until asked.
  const labels: (NodeLabel | undefined)[] = [];
  const importers = new Map<string, number>();
  // name -> range -> node: looking up a dependency needs no `name@range` string built (100k+ of them).
  const byName = new Map<string, Map<string, number>>();
  for (const entry of index.entries) {
    const node = own.length;
    for (const descriptor of entry.descriptors) {
      const [name, range] = splitDescriptor(descriptor);
      let ranges = byName.get(name);
      if (ranges === undefined) byName.set(name, (ranges = new Map()));
      ranges.set(range, node);
    }
    const [, reference] = splitDescriptor(entry.resolution);
    if (reference.startsWith('workspace:')) {
      const folder = reference.slice('workspace:'.length) || '.';
      importers.set(folder, node);
      own.push(`yarn-workspace\n${entry.text}\n${index.metadata}`);
      labels.push({ kind: 'importer', id: folder });
    } else {
      own.push(`yarn\n${entry.text}`);
      labels.push(undefined);
    }
    edges.push([]);
  }
  const leaves = new Map<string, number>();
  const leaf = (descriptor: string): number => {
    const known = leaves.get(descriptor);
    if (known !== undefined) return known;
    leaves.set(descriptor, own.length);
    own.push(`leaf\nmissing ${descriptor}`);
    edges.push([]);
    const [name, range] = splitDescriptor(descriptor);
    labels.push({ kind: 'package', name, version: range, missing: true });
    return own.length - 1;
  };
  index.entries.forEach((entry, node) => {
    const out = edges[node] as number[];
    for (const [name, range] of entry.deps) {
      const ranges = byName.get(name);
      const found = ranges?.get(range) ?? (ranges === undefined || range.includes(':') ? undefined : ranges.get(`npm:${range}`));
      out.push(found ?? leaf(`${name}@${range}`));
    }
  });
  const label = (node: number): NodeLabel => {
    const known = labels[node];
    if (known !== undefined) return known;
    const entry = index.entries[node];
    if (entry === undefined) return { kind: 'leaf', ref: '' };
    const [name, reference] = splitDescriptor(entry.resolution);
    const version = /^ {2}version: (.*)$/m.exec(entry.text)?.[1];
    return (labels[node] = { kind: 'package', name, version: version === undefined ? reference : scalar(version) });
  };
  return { own, edges, label, importers };
}
