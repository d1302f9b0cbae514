// How a test says "this failed the way a user's setup error fails": the one shape every such assertion checks.

import assert from 'node:assert/strict';
import type { CliResult } from './cli.js';

/** Exit 2, the path named on stderr, a line of stderr opening with `lockguard: `, no stack trace, never "internal error". */
export function assertSetupError(result: CliResult, path: string): void {
  assert.equal(result.code, 2, `expected exit 2, got ${result.code}\n${result.stderr}`);
  assert.ok(result.stderr.includes(path), `stderr names ${path}:\n${result.stderr}`);
  assert.doesNotMatch(result.stderr, /^ {4}at /m, 'no stack trace');
  assert.match(result.stderr, /^lockguard: /m);
  assert.doesNotMatch(result.stderr, /internal error/);
}

/** The `code` a library call throws with (the call must throw). */
export async function codeOf(call: () => unknown): Promise<string | undefined> {
  try {
    await call();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  assert.fail('expected the call to throw');
}
