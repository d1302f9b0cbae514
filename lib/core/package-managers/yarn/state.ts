// yarn berry's install state (`.yarn/install-state.gz`): the one field lockguard reads from it.
//
// Owns: `stateChecksum`, the `lockFileChecksum` the last install recorded (sha512 of "<install-state
// version>" + the yarn.lock bytes it resolved), read by a gunzip and a string search in the v8-serialized
// state, never by deserializing it (its size grows with the project; the field is all that is needed).
// Used by the pre-run check. The state is no table entry: its Maps are written in resolution order, which
// varies between installs of the same lockfile (measured with yarn 4.18.1: 3 of 12 no-op installs right
// after a fresh install rewrote it, same entries, other order), so its raw bytes are no fingerprint, and
// reading this one field costs a gunzip of the whole state (42 ms for 2,500 packages, against 2.4 ms to
// hash its bytes). node:zlib is loaded on first use only: every guarded run imports the pre-run check, and
// only yarn berry's needs it. Invariants: never throws (undefined for anything it cannot read).

import { builtin } from '../../lazy-builtins.js';

const FIELD = 'lockFileChecksum';

/** The 128 hex digits after `lockFileChecksum` in the (v8-serialized, gzipped) install state, or undefined. */
export function stateChecksum(gz: Buffer): string | undefined {
  let raw: Buffer;
  try {
    const { gunzipSync } = builtin<typeof import('node:zlib')>('node:zlib');
    raw = gunzipSync(gz);
  } catch {
    return undefined;
  }
  const at = raw.indexOf(FIELD);
  if (at === -1) return undefined;
  const match = /[0-9a-f]{128}/.exec(raw.subarray(at + FIELD.length, at + FIELD.length + 160).toString('latin1'));
  return match?.[0];
}
