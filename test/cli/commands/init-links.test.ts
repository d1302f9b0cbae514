// init and key --check-slices where the workspace's files are links or CRLF, through the real CLI: a CRLF
// turbo.json and .gitignore stay CRLF (no mixed line endings); a symlinked .gitignore stays a link, its target
// edited; a project folder linked outside the workspace is "outside", never "stale".

import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliProcess } from '../../helpers/cli.js';
import { B_ON_A_LOCK, pnpmProjects, pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

const CRLF_TURBO = '{\r\n  "tasks": {\r\n    "build": {\r\n      "outputs": ["dist/**"]\r\n    }\r\n  }\r\n}\r\n';

/** Every line break in `text` is CRLF (no bare LF). */
function allCrlf(text: string): boolean {
  return !/(^|[^\r])\n/.test(text);
}

test('init on a CRLF turbo.json and .gitignore keeps CRLF throughout', (t) => {
  const root = tempWorkspace(t, { ...pnpmTree(), 'turbo.json': CRLF_TURBO, '.gitignore': 'node_modules\r\ndist\r\n' });
  const result = cliProcess(['init', '--sound-keys', '--no-pnpmfile'], root);
  assert.equal(result.code, 0, result.stderr);
  const turbo = readFileSync(join(root, 'turbo.json'), 'utf8');
  assert.match(turbo, /\.lockguard-slice/);
  assert.ok(allCrlf(turbo), JSON.stringify(turbo));
  const ignore = readFileSync(join(root, '.gitignore'), 'utf8');
  assert.match(ignore, /\.lockguard\//);
  assert.match(ignore, /\.lockguard-slice/);
  assert.ok(allCrlf(ignore), JSON.stringify(ignore));
});

test('init through a symlinked .gitignore edits its target inside the workspace and leaves the link a link', (t) => {
  const root = tempWorkspace(t, {
    ...pnpmTree(),
    'turbo.json': '{ "tasks": { "build": {} } }\n',
    'config/gitignore': 'node_modules\n',
  });
  symlinkSync('config/gitignore', join(root, '.gitignore'));
  const result = cliProcess(['init', '--sound-keys', '--no-pnpmfile'], root);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(lstatSync(join(root, '.gitignore')).isSymbolicLink(), true, '.gitignore is still a link');
  const target = readFileSync(join(root, 'config/gitignore'), 'utf8');
  assert.match(target, /^node_modules\n/);
  assert.match(target, /\.lockguard\//);
  assert.match(target, /\.lockguard-slice/);
});

test('key --check-slices: a project folder linked outside the workspace is "outside", not "stale"', (t) => {
  const outside = tempWorkspace(t, { 'package.json': '{"name":"b"}', '.lockguard-slice': 'forged\n' });
  const tree = pnpmProjects(B_ON_A_LOCK, { a: 'a' });
  const root = tempWorkspace(t, tree);
  mkdirSync(join(root, 'packages'), { recursive: true });
  symlinkSync(outside, join(root, 'packages', 'b'));
  const result = cliProcess(['key', '--check-slices'], root);
  assert.equal(result.code, 2, `${result.stdout}${result.stderr}`);
  assert.match(result.stderr, /outside the workspace/);
  assert.ok(result.stderr.includes(join(root, 'packages', 'b')), result.stderr);
  assert.doesNotMatch(`${result.stdout}${result.stderr}`, /stale/);
});
