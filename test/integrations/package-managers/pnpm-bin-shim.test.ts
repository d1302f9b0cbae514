// pnpm's .bin shims, read (lib/integrations/package-managers/pnpm-bin-shim.ts) against the shims the real
// pnpm 10 and pnpm 12 write (a local `file:` package with a bin, installed offline) and against the shell
// running them: the script a shim starts and the NODE_PATH it hands that script are what the reader says;
// a shim of any other shape is not read.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readPnpmBinShim, shimNodePath } from '../../../lib/integrations/package-managers/pnpm-bin-shim.js';
import { isolatedEnv } from '../../helpers/env.js';
import { mustRun, PNPM10, PNPM12, type Tool } from '../../helpers/tools.js';
import { tempWorkspace } from '../../helpers/workspace.js';

// The bin prints the NODE_PATH it was given.
const BIN = "#!/usr/bin/env node\nprocess.stdout.write(process.env.NODE_PATH ?? '<unset>')\n";

function installed(t: Parameters<typeof tempWorkspace>[0], tool: Tool): { root: string; shim: string } {
  const root = tempWorkspace(t, {
    'package.json': '{"name":"shims","private":true,"devDependencies":{"printer":"file:vendor/printer"}}\n',
    vendor: {
      printer: {
        'package.json': '{"name":"printer","version":"1.0.0","bin":{"printer":"./bin/printer"}}\n',
        bin: { printer: BIN },
      },
    },
  });
  chmodSync(join(root, 'vendor', 'printer', 'bin', 'printer'), 0o755);
  mustRun(tool, ['install'], root, isolatedEnv(join(root, '.tmp')));
  return { root, shim: join(root, 'node_modules', '.bin', 'printer') };
}

/** What the shell gives the bin as NODE_PATH when it runs the shim with `nodePath` set (or unset). */
function shellNodePath(shim: string, nodePath: string | undefined): string {
  const env: Record<string, string> = { PATH: process.env['PATH'] ?? '' };
  if (nodePath !== undefined) env['NODE_PATH'] = nodePath;
  const result = spawnSync(shim, [], { env, encoding: 'utf8', timeout: 20_000 });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

for (const tool of [PNPM10, PNPM12]) {
  test(`${tool.name}'s shim: the script it starts and the NODE_PATH it hands on, as the shell runs it`, {
    timeout: 120_000,
  }, (t) => {
    const { root, shim } = installed(t, tool);
    const read = readPnpmBinShim(shim);
    assert.ok(read !== undefined, readFileSync(shim, 'utf8'));
    assert.equal(read.target, join(root, 'node_modules', 'printer', 'bin', 'printer'));
    assert.ok(
      read.nodePath !== undefined && read.nodePath.includes(join(root, 'node_modules', '.pnpm')),
      String(read.nodePath),
    );
    for (const current of [undefined, '', '/somewhere/else']) {
      assert.equal(
        shimNodePath(read, current) ?? '<unset>',
        shellNodePath(shim, current),
        `NODE_PATH ${String(current)}`,
      );
    }
  });
}

test('a shim of another shape is not read: other exec forms, other exports, two targets, a link to a shim, no shell', {
  timeout: 120_000,
}, (t) => {
  const { root, shim } = installed(t, PNPM10);
  const text = readFileSync(shim, 'utf8');
  const variant = (name: string, body: string): string => {
    const path = join(root, name);
    writeFileSync(path, body);
    chmodSync(path, 0o755);
    return path;
  };
  assert.ok(readPnpmBinShim(variant('same', text)) !== undefined, 'the copy itself is read');
  const execLine = /^\s*exec node {2}.*$/m;
  assert.match(text, execLine);
  const cases = {
    'node options': text.replace(execLine, (line) => line.replace('exec node  ', 'exec node --inspect  ')),
    'another target': text.replace(execLine, (line) => line.replace('/bin/printer"', '/bin/other"')),
    'another export': text.replace('if [ -z "$NODE_PATH" ]', 'export FOO=1\nif [ -z "$NODE_PATH" ]'),
    'no shell': text.replace('#!/bin/sh', '#!/usr/bin/env bash'),
    'an exec of something else': `${text}\nexec true\n`,
  };
  for (const [name, body] of Object.entries(cases)) {
    assert.notEqual(body, text, name);
    assert.equal(readPnpmBinShim(variant(name.replaceAll(' ', '-'), body)), undefined, name);
  }
  symlinkSync(shim, join(root, 'linked'));
  assert.equal(readPnpmBinShim(join(root, 'linked')), undefined, 'a symlink to a shim');
  assert.equal(readPnpmBinShim(join(root, 'missing')), undefined);
  assert.equal(readPnpmBinShim(variant('big', `#!/bin/sh\n${'#'.repeat(20_000)}\n`)), undefined);
});
