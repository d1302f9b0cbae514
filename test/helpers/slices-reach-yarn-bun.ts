// Test-only: which importers reach what in yarn (berry, v1) and bun lockfiles, computed the slow, obvious
// way over an independent parse (@yarnpkg/parsers' parseSyml, yarn's own parser; bun.lock through
// JSON.parse after its trailing commas are stripped), independently of lib/core/slices.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** yarn's own parser (both the berry syml and the v1 format). */
export function parseSyml(text: string): Record<string, Record<string, unknown>> {
  const { parseSyml: parse } = require('@yarnpkg/parsers') as {
    parseSyml(text: string): Record<string, Record<string, unknown>>;
  };
  return parse(text);
}

const at = (descriptor: string): [string, string] => {
  const cut = descriptor.indexOf('@', 1);
  return [descriptor.slice(0, cut), descriptor.slice(cut + 1)];
};

/** berry: per workspace folder, the resolutions of every entry it reaches (itself included). */
export function yarnBerryReach(parsed: Record<string, Record<string, unknown>>): Map<string, Set<string>> {
  const byDescriptor = new Map<string, Record<string, unknown>>();
  for (const [key, entry] of Object.entries(parsed)) {
    if (key === '__metadata') continue;
    for (const descriptor of key.split(',').map((part) => part.trim())) byDescriptor.set(descriptor, entry);
  }
  const reach = new Map<string, Set<string>>();
  for (const entry of new Set(byDescriptor.values())) {
    const resolution = String(entry['resolution']);
    const [, reference] = at(resolution);
    if (!reference.startsWith('workspace:')) continue;
    const seen = new Set<string>([resolution]);
    const todo = [entry];
    while (todo.length > 0) {
      const next = todo.pop() as Record<string, unknown>;
      for (const [name, range] of Object.entries((next['dependencies'] ?? {}) as Record<string, string>)) {
        const found = byDescriptor.get(`${name}@${range}`) ?? byDescriptor.get(`${name}@npm:${range}`);
        const id = found === undefined ? `missing ${name}@${range}` : String(found['resolution']);
        if (seen.has(id)) continue;
        seen.add(id);
        if (found !== undefined) todo.push(found);
      }
    }
    reach.set(reference.slice('workspace:'.length) || '.', seen);
  }
  return reach;
}

/** v1: per workspace folder (given with its dependency maps), every entry it reaches, named by its sorted patterns. */
export function yarnClassicReach(
  parsed: Record<string, Record<string, unknown>>,
  workspaces: ReadonlyMap<string, { name?: string; deps: Record<string, string> }>,
): Map<string, Set<string>> {
  // parseSyml gives each pattern of an entry the same object: an entry is its group of patterns.
  const groups = new Map<Record<string, unknown>, string[]>();
  for (const [pattern, entry] of Object.entries(parsed)) {
    const group = groups.get(entry) ?? [];
    group.push(pattern);
    groups.set(entry, group);
  }
  const byPattern = new Map<string, string>();
  const entryOf = new Map<string, Record<string, unknown>>();
  for (const [entry, patterns] of groups) {
    const id = [...patterns].sort().join(', ');
    entryOf.set(id, entry);
    for (const pattern of patterns) byPattern.set(pattern, id);
  }
  const byName = new Map<string, string>();
  for (const [folder, workspace] of workspaces) if (workspace.name !== undefined) byName.set(workspace.name, folder);
  const reach = new Map<string, Set<string>>();
  for (const folder of workspaces.keys()) {
    const seen = new Set<string>([`workspace ${folder}`]);
    const todo: string[] = [`workspace ${folder}`];
    while (todo.length > 0) {
      const node = todo.pop() as string;
      const entry = entryOf.get(node);
      const deps = node.startsWith('workspace ')
        ? (workspaces.get(node.slice(10))?.deps ?? {})
        : {
            ...((entry?.['dependencies'] ?? {}) as Record<string, string>),
            ...((entry?.['optionalDependencies'] ?? {}) as Record<string, string>),
          };
      for (const [name, range] of Object.entries(deps)) {
        const key = byPattern.get(`${name}@${range}`);
        const id = key ?? (byName.has(name) ? `workspace ${byName.get(name) ?? ''}` : `missing ${name}@${range}`);
        if (seen.has(id)) continue;
        seen.add(id);
        if (key !== undefined || id.startsWith('workspace ')) todo.push(id);
      }
    }
    reach.set(folder, seen);
  }
  return reach;
}

/** bun.lock as JSON: trailing commas stripped (outside strings), then JSON.parse. */
export function parseBunLock(text: string): {
  workspaces: Record<string, Record<string, unknown>>;
  packages: Record<string, unknown[]>;
} {
  return JSON.parse(
    text.replace(
      /("(?:[^"\\]|\\.)*")|,(\s*[}\]])/g,
      (match, string: string | undefined, close: string | undefined) => string ?? close ?? match,
    ),
  ) as never;
}

/** bun: per workspace folder ('.' for the root), the keys of every package it reaches (workspaces as `workspace <folder>`). */
export function bunReach(lock: ReturnType<typeof parseBunLock>): Map<string, Set<string>> {
  const folderOf = new Map<string, string>();
  for (const [key, tuple] of Object.entries(lock.packages)) {
    const ident = String(tuple[0]);
    const match = /@workspace:(.*)$/.exec(ident);
    if (match !== null) folderOf.set(key, match[1] ?? '');
  }
  const nameToFolder = new Map<string, string>();
  for (const [folder, ws] of Object.entries(lock.workspaces))
    if (typeof ws['name'] === 'string') nameToFolder.set(ws['name'], folder);
  const depsOf = (node: string): [prefix: string, names: string[]] => {
    if (node.startsWith('workspace ')) {
      const folder = node.slice(10);
      const ws = lock.workspaces[folder] ?? {};
      const names = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'].flatMap((field) =>
        Object.keys((ws[field] ?? {}) as object),
      );
      return [folder === '' ? '' : String(ws['name'] ?? ''), names];
    }
    const info = (lock.packages[node] ?? [])
      .slice(1)
      .find((item) => item !== null && typeof item === 'object' && !Array.isArray(item)) as
      | Record<string, unknown>
      | undefined;
    const names = ['dependencies', 'optionalDependencies', 'peerDependencies'].flatMap((field) =>
      Object.keys((info?.[field] ?? {}) as object),
    );
    return [node, names];
  };
  const find = (prefix: string, name: string): string | undefined => {
    let base = prefix;
    for (;;) {
      const candidate = base === '' ? name : `${base}/${name}`;
      if (candidate in lock.packages) return candidate;
      if (base === '') return undefined;
      // Drop the last name (a scoped name is two segments).
      const parts = base.split('/');
      const drop = parts.length >= 2 && (parts[parts.length - 2] ?? '').startsWith('@') ? 2 : 1;
      base = parts.slice(0, -drop).join('/');
    }
  };
  const reach = new Map<string, Set<string>>();
  for (const folder of Object.keys(lock.workspaces)) {
    const start = `workspace ${folder}`;
    const seen = new Set<string>([start]);
    const todo = [start];
    while (todo.length > 0) {
      const [prefix, names] = depsOf(todo.pop() as string);
      for (const name of names) {
        const key = find(prefix, name);
        if (key === undefined) continue;
        const id = folderOf.has(key) ? `workspace ${folderOf.get(key) ?? ''}` : key;
        if (!seen.has(id)) seen.add(id), todo.push(id);
      }
    }
    reach.set(folder === '' ? '.' : folder, seen);
  }
  return reach;
}
