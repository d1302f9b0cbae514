// Hostile lockfile bytes through every command that reads a lockfile, in process through `main`: never exit
// 70, never a planted secret in the output, a refusal is exit 2 with the path, the position and the fix
// (ERR_LOCKGUARD_BROKEN_LOCKFILE / _UNSUPPORTED_LOCKFILE asserted through the library call): the crashes
// measured in lockguard 0.1, and what pnpm refuses. What pnpm and npm accept is accepted:
// main-odd-lockfiles.test.ts; the lockfiles both start from: test/helpers/planted-lockfiles.ts.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { slicesFromLockfile, slicesFromLockfileAsync } from '../../lib/core/slices/index.js';
import { cli, type CliResult } from '../helpers/cli.js';
import { NPM_LOCK, npmTree, PNPM_LOCK, SECRET } from '../helpers/planted-lockfiles.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

/** The commands that read a lockfile, each in a fresh ledger state (verify and status after a snapshot of the good bytes). */
async function everyCommand(
  root: string,
  lockfile: string,
  bad: string | Buffer,
  good: string,
): Promise<Record<string, CliResult>> {
  const results: Record<string, CliResult> = {};
  writeFileSync(join(root, lockfile), bad);
  for (const argv of [
    ['key'],
    ['key', '--projects'],
    ['key', '--projects', '--json'],
    ['snapshot'],
    ['run', '--', 'true'],
  ])
    results[argv.join(' ')] = await cli(argv, root);
  writeFileSync(join(root, lockfile), good);
  results['snapshot (good)'] = await cli(['snapshot'], root);
  writeFileSync(join(root, lockfile), bad);
  results['verify'] = await cli(['verify'], root);
  results['status'] = await cli(['status'], root);
  results['status --json'] = await cli(['status', '--json'], root);
  return results;
}

function assertNoCrashNoLeak(results: Record<string, CliResult>): void {
  for (const [command, result] of Object.entries(results)) {
    assert.notEqual(result.code, 70, `${command} exited 70:\n${result.stderr}`);
    assert.doesNotMatch(result.stderr, /internal error|^\s+at /m, `${command}: no stack trace`);
    for (let i = 0; i + 6 <= SECRET.length; i++) {
      const piece = SECRET.slice(i, i + 6);
      assert.ok(
        !result.stdout.includes(piece) && !result.stderr.includes(piece),
        `${command} printed lockfile bytes:\n${result.stdout}\n${result.stderr}`,
      );
    }
  }
}

async function errorOf(
  call: () => unknown,
): Promise<{ code?: string; position?: { line: number; column: number }; message: string }> {
  try {
    await call();
  } catch (error) {
    return error as { code?: string; position?: { line: number; column: number }; message: string };
  }
  assert.fail('expected the call to throw');
}

describe('the crashes measured in lockguard 0.1', () => {
  test('a NUL in an importer path: refused (exit 2, line and column), never exit 70', async (t) => {
    const bad = PNPM_LOCK.replace('  packages/b:\n', '  packages/b\0x:\n');
    const root = tempWorkspace(t, pnpmTree(PNPM_LOCK));
    assertNoCrashNoLeak(await everyCommand(root, 'pnpm-lock.yaml', bad, PNPM_LOCK));
    assert.equal((await cli(['key', '--projects'], root)).code, 2);
    const error = await errorOf(() => slicesFromLockfile(Buffer.from(bad), { lockfile: 'pnpm-lock.yaml', root }));
    assert.equal(error.code, 'ERR_LOCKGUARD_BROKEN_LOCKFILE');
    assert.deepEqual(error.position, { line: 17, column: 13 });
    // The same through a YAML escape, which pnpm decodes to a NUL: no folder has that name.
    const escaped = PNPM_LOCK.replace('  packages/b:\n', '  "packages/b\\0x":\n');
    assert.equal(
      (await errorOf(() => slicesFromLockfile(Buffer.from(escaped), { lockfile: 'pnpm-lock.yaml', root }))).code,
      'ERR_LOCKGUARD_BROKEN_LOCKFILE',
    );
  });

  test('a 200,000-deep array in package-lock.json: sliced (npm installs it), never exit 70', async (t) => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const bad = NPM_LOCK.replace('"version": "7.0.0",', `"version": "7.0.0",\n      "x": ${deep},`);
    const root = tempWorkspace(t, npmTree(NPM_LOCK));
    const results = await everyCommand(root, 'package-lock.json', bad, NPM_LOCK);
    assertNoCrashNoLeak(results);
    assert.equal(results['key --projects']?.code, 0, results['key --projects']?.stderr);
    const before = slicesFromLockfile(Buffer.from(NPM_LOCK), { lockfile: 'package-lock.json', root });
    const after = slicesFromLockfile(Buffer.from(bad), { lockfile: 'package-lock.json', root });
    assert.notEqual(
      after.slices.find((s) => s.importer === 'packages/b')?.digest,
      before.slices.find((s) => s.importer === 'packages/b')?.digest,
    );
    assert.equal(
      after.slices.find((s) => s.importer === '.')?.digest,
      before.slices.find((s) => s.importer === '.')?.digest,
    );
    // At the top level too.
    const top = NPM_LOCK.replace('"requires": true,', `"requires": true,\n  "x": ${deep},`);
    writeFileSync(join(root, 'package-lock.json'), top);
    assert.equal((await cli(['key', '--projects'], root)).code, 0);
  });

  test('"": null in packages: refused with its line and column (the root project has no entry to slice)', async (t) => {
    const bad = NPM_LOCK.replace(/"": \{[^}]*\},/, '"": null,');
    const root = tempWorkspace(t, npmTree(NPM_LOCK));
    const results = await everyCommand(root, 'package-lock.json', bad, NPM_LOCK);
    assertNoCrashNoLeak(results);
    assert.equal(results['key --projects']?.code, 2);
    const error = await errorOf(() => slicesFromLockfile(Buffer.from(bad), { lockfile: 'package-lock.json', root }));
    assert.equal(error.code, 'ERR_LOCKGUARD_BROKEN_LOCKFILE');
    assert.deepEqual(error.position, { line: 6, column: 9 });
  });

  test('a broken package-lock.json never prints its bytes: the error has a reason, a line and a column', async (t) => {
    const bad = NPM_LOCK.replace(`"sha512-${SECRET}=="`, `"sha512-${SECRET.slice(0, 12)}" oops "${SECRET.slice(12)}"`);
    const root = tempWorkspace(t, npmTree(NPM_LOCK));
    const results = await everyCommand(root, 'package-lock.json', bad, NPM_LOCK);
    assertNoCrashNoLeak(results);
    assert.equal(results['key --projects']?.code, 2);
    assert.match(results['key --projects']?.stderr ?? '', /package-lock\.json.*line 17, column 42/);
    const error = await errorOf(() => slicesFromLockfile(Buffer.from(bad), { lockfile: 'package-lock.json', root }));
    assert.deepEqual([error.code, error.position], ['ERR_LOCKGUARD_BROKEN_LOCKFILE', { line: 17, column: 42 }]);
  });
});

describe('what pnpm refuses, slices refuse (line and column named)', () => {
  const cases: [string, string, { line: number; column: number }][] = [
    [
      'a duplicate importer',
      PNPM_LOCK.replace('  packages/b:\n', '  packages/a: {}\n\n  packages/b:\n'),
      { line: 17, column: 3 },
    ],
    [
      'a duplicate package entry',
      PNPM_LOCK.replace('\nsnapshots:', '\n  left-pad@1.3.0:\n    resolution: {integrity: sha512-x}\n\nsnapshots:'),
      { line: 36, column: 3 },
    ],
    [
      'a duplicate field',
      PNPM_LOCK.replace(
        "    engines: {node: '>=0.12.0'}\n",
        "    engines: {node: '>=0.12.0'}\n    engines: {node: '>=1'}\n",
      ),
      { line: 31, column: 5 },
    ],
    [
      'a duplicate key in a flow mapping',
      PNPM_LOCK.replace("{node: '>=0.12.0'}", "{node: '>=0.12.0', node: '1'}"),
      { line: 30, column: 33 },
    ],
    [
      'a truncation inside a flow mapping',
      PNPM_LOCK.slice(0, PNPM_LOCK.indexOf(`${SECRET}==}`) + 8),
      { line: 29, column: 17 },
    ],
    [
      'a truncation inside a quoted key',
      `${PNPM_LOCK.slice(0, PNPM_LOCK.indexOf('  left-pad@1.3.0:'))}  'left-pad@1.`,
      { line: 32, column: 3 },
    ],
    ['a tab in the indentation', PNPM_LOCK.replace('    engines:', '\tengines:'), { line: 30, column: 1 }],
    [
      'a line indented to no enclosing level',
      PNPM_LOCK.replace('    engines:', '   engines:'),
      { line: 30, column: 4 },
    ],
    ['a NUL byte', PNPM_LOCK.replace('deprecated: use', 'deprecated: u\0se'), { line: 34, column: 18 }],
    ['invalid UTF-8', '', { line: 34, column: 18 }],
  ];
  for (const [what, text, position] of cases) {
    test(`${what}: ERR_LOCKGUARD_BROKEN_LOCKFILE at ${position.line}:${position.column}, exit 2, nothing printed from it`, async (t) => {
      const bytes =
        what === 'invalid UTF-8'
          ? Buffer.concat([
              Buffer.from(PNPM_LOCK.slice(0, PNPM_LOCK.indexOf('deprecated: u') + 13)),
              Buffer.from([0xc3, 0x28]),
              Buffer.from(PNPM_LOCK.slice(PNPM_LOCK.indexOf('deprecated: u') + 13)),
            ])
          : Buffer.from(text);
      const root = tempWorkspace(t, pnpmTree(PNPM_LOCK));
      const results = await everyCommand(root, 'pnpm-lock.yaml', bytes, PNPM_LOCK);
      assertNoCrashNoLeak(results);
      assert.equal(results['key --projects']?.code, 2, results['key --projects']?.stdout);
      assert.match(
        results['key --projects']?.stderr ?? '',
        new RegExp(`pnpm-lock\\.yaml.*line ${position.line}, column ${position.column}`),
      );
      const error = await errorOf(() => slicesFromLockfile(bytes, { lockfile: 'pnpm-lock.yaml', root }));
      assert.deepEqual([error.code, error.position], ['ERR_LOCKGUARD_BROKEN_LOCKFILE', position]);
      assert.equal(
        (await errorOf(() => slicesFromLockfileAsync(bytes, { lockfile: 'pnpm-lock.yaml', root }))).code,
        'ERR_LOCKGUARD_BROKEN_LOCKFILE',
      );
    });
  }

  test('YAML anchors and aliases (pnpm never writes them; an alias bomb must not expand): ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE', async (t) => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      ),
    ].join('\n');
    const root = tempWorkspace(t, pnpmTree(PNPM_LOCK));
    for (const bad of [
      PNPM_LOCK.replace('\nimporters:', `\n${bomb}\n\nimporters:`),
      PNPM_LOCK.replace('        version: 7.0.0', '        version: &v 7.0.0').replace(
        '        version: 1.3.0',
        '        version: *v',
      ),
      PNPM_LOCK.replace("lockfileVersion: '9.0'", "lockfileVersion: '6.0'").replace(
        '\nimporters:',
        `\n${bomb}\n\nimporters:`,
      ),
    ]) {
      const results = await everyCommand(root, 'pnpm-lock.yaml', bad, PNPM_LOCK);
      assertNoCrashNoLeak(results);
      assert.equal(results['key --projects']?.code, 2);
      assert.equal(
        (await errorOf(() => slicesFromLockfileAsync(Buffer.from(bad), { lockfile: 'pnpm-lock.yaml', root }))).code,
        'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE',
      );
    }
  });

  test('control characters in an importer path never reach the terminal raw (no forged output line, no escape sequence)', async (t) => {
    const forged = PNPM_LOCK.replace(
      '  packages/b:\n',
      '  "packages/b\\n0000000000000000000000000000000000000000000000000000000000000000  forged\\e[31m":\n',
    );
    const root = tempWorkspace(t, pnpmTree(forged));
    const result = await cli(['key', '--projects'], root);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.split('\n').filter((line) => line !== '').length, 3, 'one line per importer');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the assertion is that no ESC reaches the terminal.
    assert.doesNotMatch(result.stdout, /\u001b/);
    assert.match(result.stdout, /packages\/b\\u000a0+ {2}forged\\u001b\[31m/);
  });
});
