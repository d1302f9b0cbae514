// package.json `engines` says what is true: the library is ES modules only, and `require('lockguard')` works
// through Node's require(esm), unflagged from Node 20.19 and 22.12 (before those, ERR_REQUIRE_ESM): hence
// `^20.19.0 || >=22.12.0` (the range ESM-only packages of the ecosystem use). Open above: yarn 1 refuses an
// install outside `engines`, and the CLI runs on later Nodes. Every Node the suite runs on (this one, each
// pinned in .ci/nodes that .ci/run loops over) is inside the range; test/package/tarball.test.ts proves the
// import and the require on each.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pinnedNodes } from '../helpers/ci-nodes.js';
import { repoRoot } from '../helpers/fixtures.js';

const read = (...parts: string[]): string => readFileSync(join(repoRoot(), ...parts), 'utf8');

export const ENGINES = '^20.19.0 || >=22.12.0';

const parse = (version: string): number[] => version.replace(/^v/, '').split('.').map(Number);
const compare = (a: number[], b: number[]): number =>
  (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0) || (a[2] ?? 0) - (b[2] ?? 0);

/** Whether `version` is inside a range of `^X.Y.Z` and `>=X.Y.Z` parts joined by `||` (the shape engines uses). */
export function satisfies(range: string, version: string): boolean {
  const v = parse(version);
  return range.split('||').some((part) => {
    const match = /^(\^|>=)(\d+\.\d+\.\d+)$/.exec(part.trim());
    if (match === null) throw new Error(`engines part "${part.trim()}" is not ^X.Y.Z or >=X.Y.Z`);
    const floor = parse(match[2] as string);
    return compare(v, floor) >= 0 && (match[1] === '>=' || v[0] === floor[0]);
  });
}

test('engines is the require(esm) range, in package.json and package-lock.json', () => {
  assert.equal((JSON.parse(read('package.json')) as { engines?: { node?: string } }).engines?.node, ENGINES);
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node?: string } }> };
  assert.equal(lock.packages['']?.engines?.node, ENGINES, 'package-lock.json carries the same engines');
});

test('every Node the suite runs on is inside engines: this one and each .ci/run installs from .ci/nodes', () => {
  assert.ok(satisfies(ENGINES, process.version), `this Node (${process.version})`);
  const loop = /^for major in ([\d ]+); do$/m.exec(read('.ci', 'run'));
  assert.ok(loop !== null, '.ci/run loops over the other Node majors');
  const pinned = pinnedNodes();
  for (const major of (loop[1] as string).trim().split(/\s+/).map(Number)) {
    const version = pinned.get(major);
    assert.ok(version !== undefined, `.ci/nodes pins node${major}`);
    assert.ok(satisfies(ENGINES, version), `node ${version} (.ci/nodes)`);
  }
});

test('the range reader: in and out at each floor, and Nodes without unflagged require(esm) are out', () => {
  for (const inside of ['20.19.0', '20.20.2', '22.12.0', '24.0.0', '26.12.1'])
    assert.ok(satisfies(ENGINES, inside), inside);
  for (const outside of ['18.20.0', '20.18.3', '21.7.0', '22.11.0']) assert.ok(!satisfies(ENGINES, outside), outside);
  assert.throws(() => satisfies('20 || 22', '20.0.0'), /not \^X\.Y\.Z or >=X\.Y\.Z/);
});
