// Colour only where it can be shown: a TTY, unless NO_COLOR is set or TERM=dumb; FORCE_COLOR decides first
// (as chalk's supports-color takes it), NO_COLOR before all.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Io, paint, useColor } from '../../lib/cli/io.js';

const stream = (isTTY: boolean): Io['stdout'] => ({ write: () => true, isTTY });
const ioWith = (env: Record<string, string>): Io => ({
  env,
  cwd: '/',
  stdout: stream(true),
  stderr: stream(true),
});

test('a TTY gets colour; a pipe, NO_COLOR and TERM=dumb do not; FORCE_COLOR decides over TTY and TERM', () => {
  assert.equal(useColor(ioWith({}), stream(true)), true);
  assert.equal(useColor(ioWith({}), stream(false)), false);
  assert.equal(useColor(ioWith({ NO_COLOR: '1' }), stream(true)), false);
  assert.equal(useColor(ioWith({ TERM: 'dumb' }), stream(true)), false);
  assert.equal(useColor(ioWith({ TERM: 'xterm-256color' }), stream(true)), true);
  assert.equal(useColor(ioWith({ TERM: 'dumb', FORCE_COLOR: '1' }), stream(false)), true);
  assert.equal(useColor(ioWith({ FORCE_COLOR: '0' }), stream(true)), false);
  assert.equal(useColor(ioWith({ NO_COLOR: '1', FORCE_COLOR: '1' }), stream(true)), false);
  assert.equal(paint(ioWith({ TERM: 'dumb' }), stream(true), 'red', 'x'), 'x');
  assert.equal(paint(ioWith({}), stream(true), 'red', 'x'), '\u001b[31mx\u001b[0m');
});
