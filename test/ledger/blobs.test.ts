// The lockfile copies in `.lockguard/blobs/`: named by the real bytes' digest, holding no credential (the
// copy a run keeps is redacted, and what it hashes to is recorded in the run); a verbatim copy an older
// lockguard kept is replaced or removed; a copy that is not what its run recorded is refused loudly (exit 2
// through the CLI, naming the file, never printing it), but a redacted copy read for a record older than the
// redaction (no `copiesVersion`) is told as not kept; `prune` deletes redacted copies as any other.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { readBlob } from '../../lib/ledger/blobs.js';
import { createRun, loadRun } from '../../lib/ledger/ledger.js';
import { pruneLedger } from '../../lib/ledger/prune.js';
import { COPIES_VERSION, keptCopy } from '../../lib/ledger/run-record.js';
import { describeLockfileMove } from '../../lib/ledger/slice-report.js';
import { cli } from '../helpers/cli.js';
import { exited } from '../helpers/ledger-runs.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';
import type { FileDigest } from '../../lib/core/digest.js';

const MARK = 'lgsecret';
const sha = (text: string | Buffer): FileDigest => createHash('sha256').update(text).digest('hex') as FileDigest;
const lock = (tarball: string, version = '7.0.0'): string =>
  `lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    dependencies:\n      tiny-dep:\n        specifier: ${version}\n        version: ${version}\n\npackages:\n\n  tiny-dep@${version}:\n    resolution: {integrity: sha512-x, tarball: ${tarball}}\n\nsnapshots:\n\n  tiny-dep@${version}: {}\n`;
const WITH_SECRET = lock(`https://user:${MARK}pass@npm.example.com/t.tgz?_authToken=${MARK}tok`);
const PLAIN = lock('https://npm.example.com/t.tgz');
/** A credential with a comma in it: cutting it would touch a YAML flow mapping's structure. */
const UNCUTTABLE = lock(`'https://user:${MARK},pass@npm.example.com/t.tgz'`);

const blobPath = (root: string, digest: string): string => join(root, '.lockguard', 'blobs', digest);

test('a lockfile with credentials is kept redacted under the real bytes digest; the run records what the copy hashes to', (t) => {
  const root = tempWorkspace(t, pnpmTree(WITH_SECRET));
  const run = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root) });
  const digest = sha(WITH_SECRET);
  const kept = fs.readFileSync(blobPath(root, digest));
  assert.ok(!kept.includes(MARK), kept.toString());
  assert.match(
    kept.toString(),
    /tarball: https:\/\/\*\*\*[0-9a-f]{16}@npm\.example\.com\/t\.tgz\?_authToken=\*\*\*[0-9a-f]{16}\}/,
  );
  assert.equal(fs.statSync(blobPath(root, digest)).mode & 0o777, 0o600);
  assert.deepEqual(run.record.copies, { [digest]: sha(kept) });
  // Read back through the record as any later process does.
  const loaded = loadRun(run.dir).record;
  assert.deepEqual(keptCopy(loaded, digest), { digest: sha(kept), recorded: true });
  assert.deepEqual(readBlob(root, digest, keptCopy(loaded, digest)), kept);
  // Expecting the bytes themselves (a record with no `copies`, written before the redaction): not kept.
  assert.equal(readBlob(root, digest), undefined);
});

test('a lockfile with nothing to cut is kept as it is and the record names no copy', (t) => {
  const root = tempWorkspace(t, pnpmTree(PLAIN));
  const run = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root) });
  assert.equal(fs.readFileSync(blobPath(root, sha(PLAIN)), 'utf8'), PLAIN);
  assert.equal(run.record.copies, undefined);
  assert.equal('copies' in JSON.parse(fs.readFileSync(join(run.dir, 'run.json'), 'utf8')), false);
});

test('every new record says how its copies are kept (copiesVersion), written and read back', (t) => {
  for (const text of [PLAIN, WITH_SECRET]) {
    const root = tempWorkspace(t, pnpmTree(text));
    const run = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root) });
    const written = JSON.parse(fs.readFileSync(join(run.dir, 'run.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(written['copiesVersion'], 1);
    assert.equal(COPIES_VERSION, 1);
    const loaded = loadRun(run.dir).record;
    assert.equal(loaded.copiesVersion, 1);
    assert.equal(keptCopy(loaded, sha(text)).recorded, true);
    // Without it (a record older than the redaction), or a later version: the conservative reading.
    assert.equal(keptCopy({}, sha(text)).recorded, false);
    assert.equal(keptCopy({ copiesVersion: 2 }, sha(text)).recorded, false);
  }
});

test('a verbatim copy an older lockguard kept is replaced by the redacted one, or removed where none can be made', (t) => {
  for (const text of [WITH_SECRET, UNCUTTABLE]) {
    const root = tempWorkspace(t, pnpmTree(text));
    fs.mkdirSync(join(root, '.lockguard', 'blobs'), { recursive: true });
    fs.writeFileSync(blobPath(root, sha(text)), text, { mode: 0o600 });
    const run = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root) });
    const left = fs.readdirSync(join(root, '.lockguard', 'blobs'));
    for (const name of left) assert.ok(!fs.readFileSync(join(root, '.lockguard', 'blobs', name)).includes(MARK), name);
    if (text === UNCUTTABLE) {
      assert.deepEqual(left, []);
      assert.deepEqual(run.record.copies, { [sha(text)]: null });
      assert.equal(readBlob(root, sha(text), keptCopy(run.record, sha(text))), undefined);
    } else {
      assert.deepEqual(left, [sha(text)]);
    }
  }
});

test('a record older than the redaction, whose copy a newer run replaced with a redacted one, reads as not kept (no false "forged")', async (t) => {
  const root = tempWorkspace(t, pnpmTree(WITH_SECRET));
  const old = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root) });
  // What an older lockguard wrote: a record with no copies field and no copiesVersion (its copy since replaced
  // by a redacted one).
  const record = JSON.parse(fs.readFileSync(join(old.dir, 'run.json'), 'utf8')) as Record<string, unknown>;
  delete record['copies'];
  delete record['copiesVersion'];
  fs.writeFileSync(join(old.dir, 'run.json'), JSON.stringify(record));
  assert.equal(readBlob(root, sha(WITH_SECRET)), undefined);
  assert.equal(readBlob(root, sha(WITH_SECRET), keptCopy(loadRun(old.dir).record, sha(WITH_SECRET))), undefined);
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), WITH_SECRET.replaceAll('7.0.0', '7.0.1'));
  const moved = await describeLockfileMove(loadRun(old.dir).record, root);
  assert.equal(moved?.gap, 'old-bytes-not-kept');
});

test('no copy kept: the move is told plainly, naming why (credential-not-cut)', async (t) => {
  const root = tempWorkspace(t, pnpmTree(UNCUTTABLE));
  const run = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root) });
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), UNCUTTABLE.replace('sha512-x', 'sha512-y'));
  const move = await describeLockfileMove(run.record, root);
  assert.equal(move?.gap, 'credential-not-cut');
  assert.match(move?.text ?? '', /cannot be cut out without changing the file's structure/);
  assert.ok(!(move?.text ?? '').includes(MARK));
});

test('both sides redacted: a move of another value is reported, the credential never; a rotated credential is a change', async (t) => {
  const root = tempWorkspace(t, pnpmTree(WITH_SECRET));
  const run = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root) });
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), WITH_SECRET.replace('sha512-x', 'sha512-y'));
  const moved = await describeLockfileMove(run.record, root);
  assert.equal(moved?.gap, undefined);
  assert.deepEqual(
    moved?.diff?.changed.map((change) => [change.importer, change.contentChanged]),
    [['.', ['tiny-dep']]],
  );
  assert.ok(!JSON.stringify(moved).includes(MARK));
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), WITH_SECRET.replaceAll(`${MARK}pass`, `${MARK}other`));
  const rotated = await describeLockfileMove(run.record, root);
  assert.deepEqual(
    rotated?.diff?.changed.map((change) => change.importer),
    ['.'],
  );
  assert.ok(!JSON.stringify(rotated).includes(MARK));
});

/**
 * `copy` in place of the kept copy of `text` (snapshotted under `root`), the lockfile then moved: verify exits 2
 * naming the copy's file, saying it is forged or damaged and to delete it. Returns verify's stderr.
 */
async function verifyRefusesCopy(root: string, text: string, copy: string): Promise<string> {
  fs.writeFileSync(blobPath(root, sha(text)), copy);
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), text.replace('sha512-x', 'sha512-y'));
  const verify = await cli(['verify'], root);
  assert.equal(verify.code, 2, verify.stderr);
  assert.ok(verify.stderr.includes(blobPath(root, sha(text))), verify.stderr);
  assert.match(verify.stderr, /forged or damaged/);
  assert.match(verify.stderr, /Delete/);
  return verify.stderr;
}

test('a forged or garbage copy is refused: verify exits 2 naming the file and the fix, never printing its bytes', async (t) => {
  for (const text of [PLAIN, WITH_SECRET]) {
    const root = tempWorkspace(t, pnpmTree(text));
    assert.equal((await cli(['snapshot'], root)).code, 0);
    // What a pull request could commit under that name: another lockfile's bytes, or garbage.
    const stderr = await verifyRefusesCopy(
      root,
      text,
      `forged-${MARK}-bytes\n${lock('https://evil.example.com/t.tgz')}`,
    );
    assert.ok(!stderr.includes('forged-') && !stderr.includes('evil.example.com'), stderr);
  }
});

test('a forged copy that holds the redaction marker is still refused for a new record; an old record reads it as not kept', async (t) => {
  for (const text of [PLAIN, WITH_SECRET]) {
    const root = tempWorkspace(t, pnpmTree(text));
    assert.equal((await cli(['snapshot'], root)).code, 0);
    // A forgery dressed as a redacted copy: the marker was what told an old record's copy from a forged one.
    const stderr = await verifyRefusesCopy(root, text, lock('https://***0123456789abcdef@evil.example.com/t.tgz'));
    assert.ok(!stderr.includes('evil.example.com'), stderr);
    // The same copy for a record older than the redaction (no copiesVersion, no copies): not kept, never used.
    const [id] = fs.readdirSync(join(root, '.lockguard', 'runs')).filter((name) => !name.startsWith('.'));
    const dir = join(root, '.lockguard', 'runs', id as string);
    const record = JSON.parse(fs.readFileSync(join(dir, 'run.json'), 'utf8')) as Record<string, unknown>;
    delete record['copies'];
    delete record['copiesVersion'];
    fs.writeFileSync(join(dir, 'run.json'), JSON.stringify(record));
    const moved = await describeLockfileMove(loadRun(dir).record, root);
    assert.equal(moved?.gap, 'old-bytes-not-kept');
  }
});

test('a record whose copies field is garbage is a broken ledger', (t) => {
  const root = tempWorkspace(t, pnpmTree(PLAIN));
  const run = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root) });
  const record = JSON.parse(fs.readFileSync(join(run.dir, 'run.json'), 'utf8')) as object;
  for (const copies of [[], 'x', { nope: null }, { [sha(PLAIN)]: 'short' }, { [sha(PLAIN)]: 1 }]) {
    fs.writeFileSync(join(run.dir, 'run.json'), JSON.stringify({ ...record, copies }));
    assert.throws(
      () => loadRun(run.dir),
      { code: 'ERR_LOCKGUARD_BROKEN_LEDGER', path: join(run.dir, 'run.json') },
      JSON.stringify(copies),
    );
  }
  for (const copiesVersion of ['1', 0, -1, 1.5, null, [1], {}]) {
    fs.writeFileSync(join(run.dir, 'run.json'), JSON.stringify({ ...record, copiesVersion }));
    assert.throws(
      () => loadRun(run.dir),
      { code: 'ERR_LOCKGUARD_BROKEN_LEDGER', path: join(run.dir, 'run.json') },
      JSON.stringify(copiesVersion),
    );
  }
});

test('prune deletes a redacted copy once no run names its digest, as any other copy', (t) => {
  const root = tempWorkspace(t, pnpmTree(WITH_SECRET));
  const first = createRun({ kind: 'run', table: readWorkspaceFingerprints(root) });
  exited(first.dir);
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), PLAIN);
  for (let i = 0; i < 2; i++) exited(createRun({ kind: 'run', table: readWorkspaceFingerprints(root) }).dir);
  assert.deepEqual(fs.readdirSync(join(root, '.lockguard', 'blobs')).sort(), [sha(PLAIN), sha(WITH_SECRET)].sort());
  const result = pruneLedger(root, { keep: 2 });
  assert.deepEqual(
    result.removed.map((run) => run.id),
    [first.record.id],
  );
  assert.equal(result.blobs.removed, 1);
  assert.deepEqual(fs.readdirSync(join(root, '.lockguard', 'blobs')), [sha(PLAIN)]);
});
