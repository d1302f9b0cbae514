// The GitHub Action's (lib/ci/restore, lib/ci/save) way to get lockguard before the job's own install,
// pinned by the repository's own lockfile: never an unpinned `npx`. Not part of the library (plain Node,
// no dependencies, never imported by lib/; it runs on the CI runner from the action's folder).
//
// Usage: node install-lockguard.mjs <workspace root> <destination folder>
// Writes <destination>/package.json and <destination>/package-lock.json: exactly lockguard and the packages
// it depends on, at the versions, tarballs and integrity hashes the workspace's lockfile holds (npm's
// package-lock.json: the subset of its tree; pnpm-lock.yaml v9: its packages and snapshots, laid out as
// npm's tree). The action then runs `npm ci --ignore-scripts` there. Exit 3 with one line naming the fix
// when lockguard is not a dependency of the root or the lockfile is one this script does not read.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const REGISTRY = 'https://registry.npmjs.org';

function refuse(message) {
  process.stderr.write(`lockguard action: ${message}\n`);
  process.exit(3);
}

/** npm: the lockfile's own tree, cut to lockguard's closure (node's lookup from each package upwards). */
export function fromPackageLock(lock) {
  const packages = lock.packages ?? {};
  const start = 'node_modules/lockguard';
  if (packages[start] === undefined) return undefined;
  const keep = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const path = queue.shift();
    if (keep.has(path)) continue;
    const entry = packages[path];
    if (entry.link === true) refuse(`${path} is a link in package-lock.json; install lockguard from the registry.`);
    keep.set(path, entry);
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
      let at = path;
      let found;
      for (;;) {
        const candidate = `${at}/node_modules/${name}`;
        if (packages[candidate] !== undefined) {
          found = candidate;
          break;
        }
        const up = at.lastIndexOf('/node_modules/');
        if (up === -1) break;
        at = at.slice(0, up);
      }
      found ??= packages[`node_modules/${name}`] === undefined ? undefined : `node_modules/${name}`;
      if (found !== undefined) queue.push(found);
      else if (entry.dependencies?.[name] !== undefined) refuse(`package-lock.json has no ${name} for ${path}.`);
    }
  }
  return { version: packages[start].version, packages: Object.fromEntries([...keep].sort()) };
}

const unquote = (text) => text.trim().replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1');

/** The sections of a pnpm-lock.yaml v9 this script needs: importers['.'], packages, snapshots. */
export function readPnpmLock(text) {
  const sections = { importers: {}, packages: {}, snapshots: {} };
  let section;
  let key;
  let field;
  let importer;
  for (const line of text.split('\n')) {
    if (/^\S/.test(line)) {
      section = /^(\w+):/.exec(line)?.[1];
      continue;
    }
    const indent = /^ */.exec(line)[0].length;
    const body = line.trim();
    if (body === '' || sections[section] === undefined) continue;
    if (indent === 2) {
      key = unquote(body.replace(/:$/, ''));
      sections[section][key] ??= { dependencies: {} };
      field = undefined;
    } else if (indent === 4) {
      const [, name, value = ''] = /^('[^']*'|[^:]+):\s*(.*)$/.exec(body) ?? [];
      field = name === undefined ? undefined : unquote(name);
      if (field === 'resolution') sections[section][key].resolution = value;
    } else if (indent === 6 && section === 'snapshots' && /^(dependencies|optionalDependencies)$/.test(field)) {
      const [, name, value] = /^('[^']*'|[^:]+):\s*(.*)$/.exec(body) ?? [];
      sections.snapshots[key].dependencies[unquote(name)] = unquote(value);
    } else if (indent === 6 && section === 'importers' && key === '.') {
      importer = unquote(body.replace(/:$/, ''));
    } else if (indent === 8 && section === 'importers' && key === '.' && importer === 'lockguard') {
      const [, name, value] = /^(\w+):\s*(.*)$/.exec(body) ?? [];
      if (name === 'version') sections.importers.lockguard = unquote(value);
    }
  }
  return sections;
}

/** pnpm: lockguard's closure from packages/snapshots, placed as npm would (top level when free, else nested). */
export function fromPnpmLock(text) {
  const lock = readPnpmLock(text);
  const version = lock.importers.lockguard;
  if (version === undefined) return undefined;
  const packages = {};
  const place = (name, snapshot, parent) => {
    const bare = snapshot.replace(/\(.*$/, '');
    const pinned = bare.slice(bare.lastIndexOf('@') + 1);
    const top = `node_modules/${name}`;
    const path = packages[top] === undefined || packages[top].version === pinned ? top : `${parent}/node_modules/${name}`;
    if (packages[path] !== undefined) return;
    const resolution = lock.packages[bare]?.resolution ?? '';
    const integrity = /integrity: ([^,}\s]+)/.exec(resolution)?.[1];
    const tarball = /tarball: ([^,}\s]+)/.exec(resolution)?.[1];
    if (integrity === undefined && tarball === undefined) refuse(`pnpm-lock.yaml holds no resolution for ${bare}.`);
    const unscoped = name.slice(name.lastIndexOf('/') + 1);
    const dependencies = lock.snapshots[snapshot]?.dependencies ?? {};
    packages[path] = {
      version: pinned,
      resolved: tarball ?? `${REGISTRY}/${name}/-/${unscoped}-${pinned}.tgz`,
      ...(integrity === undefined ? {} : { integrity }),
      ...(Object.keys(dependencies).length === 0
        ? {}
        : { dependencies: Object.fromEntries(Object.entries(dependencies).map(([dep, v]) => [dep, v.replace(/\(.*$/, '')])) }),
    };
    for (const [dep, v] of Object.entries(dependencies)) place(dep, `${dep}@${v}`, path);
  };
  place('lockguard', `lockguard@${version}`, '');
  return { version: version.replace(/\(.*$/, ''), packages: Object.fromEntries(Object.entries(packages).sort()) };
}

function main([root, dest]) {
  if (root === undefined || dest === undefined) refuse('usage: node install-lockguard.mjs <workspace root> <destination>');
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  if (manifest.devDependencies?.lockguard === undefined && manifest.dependencies?.lockguard === undefined)
    refuse(`lockguard is not a dependency of ${join(root, 'package.json')}: add it (pnpm add -D -w lockguard), or give the action a lockguard: command.`);
  const npmLock = join(root, 'package-lock.json');
  const pnpmLock = join(root, 'pnpm-lock.yaml');
  const tree = existsSync(npmLock)
    ? fromPackageLock(JSON.parse(readFileSync(npmLock, 'utf8')))
    : existsSync(pnpmLock)
      ? fromPnpmLock(readFileSync(pnpmLock, 'utf8'))
      : refuse('this action reads package-lock.json or pnpm-lock.yaml (yarn, bun: give it a lockguard: command).');
  if (tree === undefined) refuse('the lockfile does not list lockguard for the root: run the install that adds it, and commit the lockfile.');
  mkdirSync(dest, { recursive: true });
  const root_ = { name: 'lockguard-ci', version: '0.0.0', dependencies: { lockguard: tree.version } };
  writeFileSync(join(dest, 'package.json'), `${JSON.stringify({ ...root_, private: true }, null, 2)}\n`);
  const lock = { name: 'lockguard-ci', version: '0.0.0', lockfileVersion: 3, requires: true, packages: { '': root_, ...tree.packages } };
  writeFileSync(join(dest, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  process.stdout.write(`lockguard ${tree.version}, ${Object.keys(tree.packages).length} packages pinned by the lockfile\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
