// `lockguard completion bash` in a real bash: the script is sourced, bash's completion variables are set as
// bash sets them on Tab, and the completion function's answer (COMPREPLY) is read back. `lockguard` on PATH
// is the built executable, as a user's node_modules/.bin or global install puts it.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { COMMAND_NAMES } from '../../../lib/cli/command-names.js';
import { EXIT } from '../../../lib/cli/exit-codes.js';
import { BIN, cli } from '../../helpers/cli.js';

/** COMPREPLY for the words typed so far (the last one is the word under the cursor). */
function complete(t: TestContext, script: string, words: readonly string[]): string[] {
  const bin = mkdtempSync(join(tmpdir(), 'lockguard-completion-'));
  t.after(() => rmSync(bin, { recursive: true, force: true }));
  writeFileSync(join(bin, 'lockguard'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'lockguard'), 0o755);
  writeFileSync(join(bin, 'completion.bash'), script);
  const quoted = words.map((word) => `'${word}'`).join(' ');
  const probe = `source "${join(bin, 'completion.bash')}"; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; cd "${bin}"; _lockguard; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['-c', probe], {
    encoding: 'utf8',
    env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: bin },
  });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.split('\n').filter((line) => line !== '');
}

test('completion bash: commands after lockguard and help, flags from the command help at Tab time, files after run --', async (t) => {
  const printed = await cli(['completion', 'bash'], process.cwd());
  assert.equal(printed.code, EXIT.ok, printed.stderr);
  const script = printed.stdout;
  assert.deepEqual(complete(t, script, ['lockguard', '']).sort(), [...COMMAND_NAMES, 'help'].sort());
  assert.deepEqual(complete(t, script, ['lockguard', 'qu']), ['quarantine']);
  assert.deepEqual(complete(t, script, ['lockguard', 'help', 'st']), ['status']);
  assert.deepEqual(complete(t, script, ['lockguard', '-C', 'x', 'do']), ['doctor']);
  const runFlags = complete(t, script, ['lockguard', 'run', '--po']);
  assert.deepEqual(runFlags, ['--policy']);
  const verify = complete(t, script, ['lockguard', 'verify', '--']);
  assert.ok(
    verify.includes('--github-output') && verify.includes('--json') && verify.includes('--quiet'),
    verify.join(' '),
  );
  // After run's --, the wrapped command's words: files (the probe's folder holds completion.bash).
  assert.deepEqual(complete(t, script, ['lockguard', 'run', '--', 'comp']), ['completion.bash']);
  assert.deepEqual(complete(t, script, ['lockguard', '--q']), ['--quiet']);
});

test('completion: another shell or a stray word is a usage error that says what it prints', async () => {
  for (const argv of [
    ['completion', 'tcsh'],
    ['completion', 'bash', 'extra'],
  ]) {
    const result = await cli(argv, process.cwd());
    assert.equal(result.code, EXIT.usage);
    assert.match(result.stderr, /prints a script for bash/);
    assert.match(result.stderr, /source <\(lockguard completion bash\)/);
  }
  assert.equal((await cli(['completion'], process.cwd())).code, EXIT.ok, 'bash is the default');
});
