// Every option a command parses is in its help (issue 31): each command is run once with a flag no command
// has, `parse` hands its options table to the observer before it refuses the flag, and each option's long
// form (and short form, where it has one) must appear in the text `lockguard <command> --help` prints.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { observeParse, type Options } from '../../lib/cli/args.js';
import { COMMANDS } from '../../lib/cli/command-table.js';
import { isLockguardError } from '../../lib/core/errors.js';

const sink = { write: () => true };

test('every option each command parses appears in its --help', async (t) => {
  const seen = new Map<string, Options>();
  observeParse((name, options) => seen.set(name, { ...seen.get(name), ...options }));
  t.after(() => observeParse(undefined));
  const names = Object.keys(COMMANDS);
  assert.ok(names.length >= 12, names.join(', '));
  for (const name of names) {
    const command = await COMMANDS[name]?.();
    assert.ok(command !== undefined, name);
    await assert.rejects(
      command.run(['--zz-no-such-option'], { cwd: '/nonexistent', env: {}, stdout: sink, stderr: sink }),
      (error: unknown) => isLockguardError(error) && error.code === 'ERR_LOCKGUARD_USAGE',
      `${name} refuses an unknown flag as a usage error`,
    );
    const options = seen.get(name);
    assert.ok(options !== undefined, `${name} parsed its argv with parse()`);
    for (const [option, spec] of Object.entries(options)) {
      assert.match(command.help, new RegExp(`--${option}\\b`), `lockguard ${name} --help names --${option}`);
      if (spec.short !== undefined)
        assert.match(command.help, new RegExp(`-${spec.short}\\b`), `lockguard ${name} --help names -${spec.short}`);
    }
  }
});
