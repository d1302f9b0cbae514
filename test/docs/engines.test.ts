// package.json `engines` says exactly what is tested: the Node majors .ci/run runs the suite on (the
// machine's Node first, then each `node<major>` pinned in .ci/nodes), no more and no fewer.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/fixtures.js';

const read = (...parts: string[]): string => readFileSync(join(repoRoot(), ...parts), 'utf8');

/** The majors of an engines range written as `A || B || C`, each a bare major; undefined for any other shape. */
export function rangeMajors(range: string): number[] | undefined {
  const parts = range.split('||').map((part) => part.trim());
  return parts.every((part) => /^[1-9]\d*$/.test(part)) ? parts.map(Number) : undefined;
}

test('engines lists the Node majors .ci/run tests: the machine Node, then each pinned in .ci/nodes', () => {
  const engines = (JSON.parse(read('package.json')) as { engines?: { node?: string } }).engines?.node ?? '';
  const majors = rangeMajors(engines);
  assert.ok(majors !== undefined, `engines.node "${engines}" is a list of majors ("20 || 22 || 24")`);
  const loop = /^for major in ([\d ]+); do$/m.exec(read('.ci', 'run'));
  assert.ok(loop !== null, '.ci/run loops over the other Node majors');
  const others = (loop[1] as string).trim().split(/\s+/).map(Number);
  const pinned = Object.keys(
    (JSON.parse(read('.ci', 'nodes', 'package.json')) as { devDependencies: Record<string, string> }).devDependencies,
  );
  for (const major of others) assert.ok(pinned.includes(`node${major}`), `.ci/nodes pins node${major}`);
  const lowest = Math.min(...majors);
  assert.deepEqual(majors, [lowest, ...others], 'engines: the machine Node (the lowest) and the pinned ones, in order');
  assert.ok(
    majors.includes(Number(process.versions.node.split('.')[0])),
    `this Node (${process.version}) is one engines names`,
  );
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node?: string } }> };
  assert.equal(lock.packages['']?.engines?.node, engines, 'package-lock.json carries the same engines');
});

test('the engines reader takes bare majors only', () => {
  assert.deepEqual(rangeMajors('20 || 22 || 24'), [20, 22, 24]);
  assert.equal(rangeMajors('>=20'), undefined);
  assert.equal(rangeMajors('^20 || 22'), undefined);
});
