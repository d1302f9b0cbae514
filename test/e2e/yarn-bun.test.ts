// End to end with the real yarn 4.18.1 (PnP, its default, and nodeLinker: node-modules), yarn 1.22.22 and
// bun 1.4.5, offline, HOME/XDG/caches isolated: the CI save gate's verdicts (first, frozen and no-op
// installs save; `add` and a same-size hand edit do not), exact slice moves after b's dependency changes,
// the pre-run check (a lockfile-only edit, a deleted package), and what --policy refuse stops at the source.

import assert from 'node:assert/strict';
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import { snapshotStep, verifyStep } from '../helpers/gate.js';
import {
  depTarballs,
  FLAVORS,
  freshYarnBunClone,
  installTemplate,
  type YarnBunWorkspace,
} from '../helpers/yarn-bun.js';

let shared = '';
let env: Record<string, string> = {};
let dep7: Buffer = Buffer.alloc(0);
let dep6: Buffer = Buffer.alloc(0);

before(() => {
  ({ dir: shared, env, dep7, dep6 } = depTarballs('lockguard-yarn-bun-'));
});

after(() => rmSync(shared, { recursive: true, force: true }));

/** Overwrite one byte of `path` in place (same size, same second), at the first `needle`'s last byte. */
function editOneByte(path: string, needle: RegExp): void {
  const text = readFileSync(path, 'latin1');
  const match = needle.exec(text);
  assert.ok(match, `${String(needle)} is in ${path}`);
  const at = match.index + match[0].length - 1;
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.from(text[at] === '0' ? '1' : '0'), 0, 1, at);
  } finally {
    closeSync(fd);
  }
}

/** Where each lockfile carries a hash to flip (a checksum, a resolved sha1, an integrity). */
const HASH = { 'yarn.lock': /(checksum: 10c0\/|#)[0-9a-f]{8}/, 'bun.lock': /"sha512-[A-Za-z0-9+/]{8}/ } as const;

interface Row {
  importer: string;
  digest: string;
}

function projects(ws: YarnBunWorkspace): Map<string, string> {
  const result = cliProcess(['key', '--projects', '--json'], ws.root, ws.env);
  assert.equal(result.code, 0, result.stderr);
  return new Map((JSON.parse(result.stdout) as Row[]).map((row) => [row.importer, row.digest]));
}

function lockguardRun(
  ws: YarnBunWorkspace,
  options: readonly string[],
  command: readonly string[],
): ReturnType<typeof cliProcess> {
  return cliProcess(['run', ...options, '--', ...command], ws.root, ws.env, 90_000);
}

const both = (result: { stdout: string; stderr: string }): string => `${result.stdout}\n${result.stderr}`;

for (const spec of FLAVORS) {
  describe(`${spec.flavor}`, { timeout: 240_000 }, () => {
    let template = '';
    before(() => {
      template = installTemplate(spec, join(shared, `template-${spec.flavor}`), env, dep7, dep6);
    });

    test('gate: a first install and a frozen install on a fresh clone, and a no-op install (full scope too), give save=true', (t) => {
      {
        // First install on a fresh clone: the inputs scope does not see the markers it writes.
        const ws = freshYarnBunClone(t, spec, template, env);
        const snap = snapshotStep(ws.root, ws.env);
        ws.must(['install']);
        assert.equal(verifyStep(ws.root, ws.env, snap).save, 'true');
        // A no-op install, even under the full scope: no marker changes (none is volatile).
        const full = snapshotStep(ws.root, ws.env, ['--scope', 'full']);
        ws.must(['install']);
        const verdict = verifyStep(ws.root, ws.env, full);
        assert.equal(verdict.save, 'true', verdict.result.stderr);
      }
      {
        const ws = freshYarnBunClone(t, spec, template, env);
        const snap = snapshotStep(ws.root, ws.env);
        ws.must(spec.frozen);
        assert.equal(verifyStep(ws.root, ws.env, snap).save, 'true');
      }
    });

    test(`gate: b's add of dep@6.0.0 gives save=false naming ${spec.lockfile}; only packages/b's slice moved`, (t) => {
      const ws = freshYarnBunClone(t, spec, template, env);
      ws.must(['install']);
      const before = projects(ws);
      assert.deepEqual([...before.keys()].sort(), ['.', 'packages/a', 'packages/b', 'packages/c']);
      const snap = snapshotStep(ws.root, ws.env);
      ws.must(spec.addSix);
      assert.match(ws.read(spec.lockfile), /dep-6\.0\.0\.tgz/, 'the add rewrote the lockfile');
      const verdict = verifyStep(ws.root, ws.env, snap);
      assert.equal(verdict.save, 'false');
      assert.ok(verdict.moved.includes(spec.lockfile), verdict.moved.join(','));
      assert.match(
        verdict.result.stderr,
        new RegExp(`${spec.lockfile.replace('.', '\\.')} moved: the slice of packages/b changed`),
      );
      const now = projects(ws);
      assert.deepEqual(
        [...now].filter(([importer, digest]) => before.get(importer) !== digest).map(([importer]) => importer),
        ['packages/b'],
      );
    });

    test(`gate: a same-size hand edit of ${spec.lockfile} within the same second gives save=false`, (t) => {
      const ws = freshYarnBunClone(t, spec, template, env);
      ws.must(['install']);
      const snap = snapshotStep(ws.root, ws.env);
      editOneByte(join(ws.root, spec.lockfile), HASH[spec.lockfile as keyof typeof HASH]);
      const verdict = verifyStep(ws.root, ws.env, snap);
      assert.equal(verdict.save, 'false');
      assert.deepEqual(verdict.moved, [spec.lockfile]);
    });

    test('pre-run check: a healthy tree runs; a lockfile-only edit and (but yarn 1) a deleted package refuse to start (exit 3)', (t) => {
      const ws = freshYarnBunClone(t, spec, template, env);
      {
        // Not installed yet: refused.
        const result = lockguardRun(ws, [], ['true']);
        assert.equal(result.code, 3, both(result));
        assert.match(result.stderr, /ERR_LOCKGUARD_PRE_CHECK|does not hold/);
      }
      ws.must(['install']);
      assert.equal(lockguardRun(ws, [], ['true']).code, 0, 'installed: the check passes');
      const lockfile = ws.read(spec.lockfile);
      {
        editOneByte(join(ws.root, spec.lockfile), HASH[spec.lockfile as keyof typeof HASH]);
        const result = lockguardRun(ws, [], ['true']);
        assert.equal(result.code, 3, both(result));
        assert.match(result.stderr, new RegExp(spec.lockfile.replace('.', '\\.')));
        assert.equal(lockguardRun(ws, ['--no-pre-check'], ['true']).code, 0, '--no-pre-check skips it');
      }
      if (spec.flavor === 'yarn1') return;
      {
        // The same bytes again: in sync with what was installed.
        writeFileIn(ws, spec.lockfile, lockfile);
        assert.equal(lockguardRun(ws, [], ['true']).code, 0, 'back in sync');
        deletePackage(ws);
        const result = lockguardRun(ws, [], ['true']);
        assert.equal(result.code, 3, both(result));
        assert.match(result.stderr, /missing|not installed/);
      }
    });

    test('refuse: what the tool lets lockguard stop at the source is stopped; the rest fails the run after the rewrite', (t) => {
      const ws = freshYarnBunClone(t, spec, template, env);
      ws.must(['install']);
      const lockfile = ws.read(spec.lockfile);
      {
        // A no-op install inside a refusing run passes for every tool.
        const result = lockguardRun(ws, ['--policy', 'refuse'], spec.argv(['install']));
        assert.equal(result.code, 0, both(result));
      }
      const add = lockguardRun(ws, ['--policy', 'refuse'], spec.argv(spec.addSix));
      if (spec.tool.name === 'yarn') {
        // yarn berry: the plugin refuses `add` before anything is written.
        assert.notEqual(add.code, 0, both(add));
        assert.match(both(add), /ERR_LOCKGUARD_REFUSED/);
        assert.equal(ws.read(spec.lockfile), lockfile);
        assert.match(ws.read('packages/b/package.json'), /dep-7\.0\.0/);
        // And an install after a manifest edit: YARN_ENABLE_IMMUTABLE_INSTALLS stops it (YN0028).
        writeFileIn(
          ws,
          'packages/b/package.json',
          ws.read('packages/b/package.json').replace('dep-7.0.0', 'dep-6.0.0'),
        );
        const install = lockguardRun(ws, ['--policy', 'refuse', '--no-pre-check'], spec.argv(['install']));
        assert.notEqual(install.code, 0, both(install));
        assert.equal(ws.read(spec.lockfile), lockfile);
      } else {
        // yarn 1 and bun: nothing holds at the source; the run fails (exit 1) after the rewrite and says so.
        assert.equal(add.code, 1, both(add));
        assert.notEqual(ws.read(spec.lockfile), lockfile);
        assert.match(
          add.stderr,
          new RegExp(
            `\\[lockguard\\] a task rewrote .*${spec.lockfile.replace('.', '\\.')}.*not refused at the source`,
          ),
        );
      }
    });
  });
}

function writeFileIn(ws: YarnBunWorkspace, path: string, text: string): void {
  const fd = openSync(join(ws.root, path), 'w');
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Remove dep from the installed tree as a cache clean or a stray rm would. */
function deletePackage(ws: YarnBunWorkspace): void {
  switch (ws.spec.flavor) {
    case 'yarn-pnp':
      rmSync(join(ws.root, '.yarn', 'cache'), { recursive: true, force: true });
      return;
    case 'yarn-nm':
      rmSync(join(ws.root, 'node_modules', 'dep'), { recursive: true, force: true });
      return;
    case 'bun':
      for (const dir of ['node_modules/.bun', 'node_modules/dep'])
        rmSync(join(ws.root, dir), { recursive: true, force: true });
      return;
    case 'yarn1':
      throw new Error('yarn 1 records no locations: not checked');
  }
}
