// A `node_modules` above the workspace root (issue 29): Node resolves from every ancestor's node_modules what
// a project's own lacks, so the table lists that folder's install markers as `ancestor-marker` entries. They
// are watched like any entry (a change mid-run is a move), folded into no key (keys agree between machines),
// read only inside their own folder, and a ledger may name them only in their exact shape.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isAncestorMarkerPath } from '../../lib/core/entries.js';
import { isLockguardError } from '../../lib/core/errors.js';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { FingerprintWatch, statusLine } from '../../lib/core/watch.js';
import { withholdScope } from '../../lib/integrations/runners/affected.js';
import { isTableEntry } from '../../lib/ledger/run-record.js';
import { writeSliceFilesSync } from '../../lib/ledger/slice-pass.js';
import { pnpmProjects, pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";
const NPM_MARKER = '{"name":"above","lockfileVersion":3,"packages":{}}\n';

/** A pnpm workspace at `<base>/ws`, with `above` written in `<base>` (its node_modules, say). */
function nested(t: Parameters<typeof tempWorkspace>[0], above: Parameters<typeof tempWorkspace>[1]): string {
  const base = tempWorkspace(t, { ...above, ws: pnpmTree(LOCK) });
  return join(base, 'ws');
}

test("an ancestor's node_modules: its five markers are listed (present or absent), in no key", (t) => {
  const root = nested(t, { node_modules: { '.package-lock.json': NPM_MARKER } });
  const table = readWorkspaceFingerprints(root);
  const above = table.entries.filter((entry) => entry.kind === 'ancestor-marker');
  assert.deepEqual(
    above.map((entry) => [entry.path, entry.digest === null ? 'absent' : 'file']),
    [
      ['../node_modules/.package-lock.json', 'file'],
      ['../node_modules/.modules.yaml', 'absent'],
      ['../node_modules/.pnpm/lock.yaml', 'absent'],
      ['../node_modules/.yarn-state.yml', 'absent'],
      ['../node_modules/.yarn-integrity', 'absent'],
    ],
  );
  assert.ok(
    readWorkspaceFingerprints(root, { scope: 'inputs' }).entries.some((entry) => entry.kind === 'ancestor-marker'),
    'watched in the inputs scope too (what a project resolves is no install marker of the workspace)',
  );
  const alone = tempWorkspace(t, pnpmTree(LOCK));
  assert.equal(readWorkspaceFingerprints(alone).entries.filter((e) => e.kind === 'ancestor-marker').length, 0);
  assert.equal(table.key, readWorkspaceFingerprints(alone).key, 'the same workspace keys the same without it');
});

test('an ancestor without node_modules adds nothing; a node_modules two levels up is `../../node_modules`', (t) => {
  const base = tempWorkspace(t, { node_modules: { '.yarn-integrity': '{}\n' }, mid: { ws: pnpmTree(LOCK) } });
  const paths = readWorkspaceFingerprints(join(base, 'mid', 'ws'))
    .entries.filter((entry) => entry.kind === 'ancestor-marker' && entry.digest !== null)
    .map((entry) => entry.path);
  assert.deepEqual(paths, ['../../node_modules/.yarn-integrity']);
});

test('the watch sees an ancestor marker rewritten, and the line says what it is, not that a key folds it', (t) => {
  const root = nested(t, { node_modules: { '.package-lock.json': NPM_MARKER } });
  const table = readWorkspaceFingerprints(root);
  const watch = new FingerprintWatch(root, table, table.at);
  watch.wrote();
  assert.equal(watch.moved(), undefined);
  writeFileSync(join(root, '..', 'node_modules', '.package-lock.json'), NPM_MARKER.replace('3', '2'));
  watch.wrote();
  assert.deepEqual(watch.moved(), ['../node_modules/.package-lock.json']);
  const line = statusLine(watch.moves(), 'withheld');
  assert.match(line, /a node_modules above the workspace root, which every project resolves from: /);
  assert.doesNotMatch(line, /which every key folds/);
});

test('an ancestor marker that is a FIFO, or a link out of its folder, is refused with its path (exit 2)', (t) => {
  const fifo = nested(t, { node_modules: {} });
  execFileSync('mkfifo', [join(fifo, '..', 'node_modules', '.modules.yaml')]);
  assert.throws(
    () => readWorkspaceFingerprints(fifo),
    (error: unknown) => isLockguardError(error) && error.message.includes('node_modules/.modules.yaml'),
  );
  const linked = nested(t, { node_modules: {}, secret: 'x\n' });
  const outside = tempWorkspace(t, { 'lock.yaml': 'x\n' });
  mkdirSync(join(linked, '..', 'node_modules', '.pnpm'));
  symlinkSync(join(outside, 'lock.yaml'), join(linked, '..', 'node_modules', '.pnpm', 'lock.yaml'));
  assert.throws(
    () => readWorkspaceFingerprints(linked),
    (error: unknown) => isLockguardError(error) && error.message.includes('.pnpm/lock.yaml'),
  );
});

test('a ledger may name an ancestor marker only in its exact shape and kind', () => {
  assert.ok(isTableEntry('pnpm', '../node_modules/.package-lock.json', 'ancestor-marker'));
  assert.ok(isTableEntry('npm', '../../../node_modules/.pnpm/lock.yaml', 'ancestor-marker'));
  for (const path of [
    '../../etc/passwd',
    '../node_modules/../../etc/.package-lock.json',
    'node_modules/.package-lock.json',
    '../node_modules/x/.package-lock.json',
    '/node_modules/.package-lock.json',
    `${'../'.repeat(65)}node_modules/.package-lock.json`,
  ])
    assert.ok(!isAncestorMarkerPath(path) && !isTableEntry('pnpm', path, 'ancestor-marker'), path);
  assert.ok(!isTableEntry('pnpm', '../node_modules/.package-lock.json', 'install-marker'));
  assert.ok(!isTableEntry('pnpm', '../pnpm-lock.yaml', 'lockfile'));
});

test('a move above the root withholds every save after it, on any package manager, and says why', () => {
  for (const manager of ['pnpm', 'npm', 'yarn', 'bun'] as const) {
    const scope = withholdScope({
      root: '/nonexistent',
      manager,
      moved: [{ path: '../node_modules/.package-lock.json', kind: 'rewritten', was: null, now: null }],
      slices: [],
    });
    assert.equal(scope.kind, 'all');
    assert.match(scope.kind === 'all' ? scope.reason : '', /a node_modules above the workspace root/);
  }
});

test('gitignored slice files fold the markers above the root (the above line), committed ones never; a change up there rewrites them', (t) => {
  const lock = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n\n  packages/a: {}\n";
  const tree = (ignore: string) => ({
    node_modules: { '.package-lock.json': NPM_MARKER },
    ws: { ...pnpmProjects(lock, { a: 'a' }), '.gitignore': ignore },
  });
  const file = (root: string) => readFileSync(join(root, 'packages', 'a', '.lockguard-slice'), 'utf8');
  const ignored = join(tempWorkspace(t, tree('.lockguard/\n.lockguard-slice\n')), 'ws');
  assert.equal(writeSliceFilesSync(ignored)?.kind, 'written');
  const first = file(ignored);
  assert.match(first, /^above [0-9a-f]{64}$/m);
  assert.equal(writeSliceFilesSync(ignored)?.kind, 'current', 'nothing moved: the fast path');
  writeFileSync(join(ignored, '..', 'node_modules', '.package-lock.json'), NPM_MARKER.replace('3', '2'));
  assert.equal(writeSliceFilesSync(ignored)?.kind, 'written', 'a change above the root makes the next pass write');
  assert.notEqual(file(ignored), first);
  assert.equal(file(ignored).replace(/^above .*$/m, ''), first.replace(/^above .*$/m, ''), 'only the above line moved');
  const committed = join(tempWorkspace(t, tree('.lockguard/\n')), 'ws');
  writeSliceFilesSync(committed);
  assert.doesNotMatch(file(committed), /^above /m, 'committed files agree between machines');
});
