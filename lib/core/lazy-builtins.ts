// Node builtins loaded on first use: node:crypto and node:tty.
//
// Owns: the one way lib code reaches these two. Why: a static import (esbuild keeps it at the top of every
// bundle) loads the module on every start, whether the command needs it or not. node:crypto's internal
// modules cost about 1.3 ms and 100 page faults of a `lockguard verify` that, when no entry's identity
// changed, hashes nothing; node:tty loads node:net and node:stream (about 3 ms of a Node start here), asked
// only when a stream is a character device (cli/fd-stream.ts). test/bench/README.md "The code cache".
// Invariants: the same module object on every call; works on every Node a bundle may run on (the pnpm and
// yarn plugins run on whatever Node those tools use: `process.getBuiltinModule` exists from Node 20.16 and
// 22.3, `createRequire` before that).

import { createRequire } from 'node:module';

type Crypto = typeof import('node:crypto');
type Tty = typeof import('node:tty');

function load<T>(id: string): T {
  return (process.getBuiltinModule?.(id) as T | undefined) ?? (createRequire(process.execPath)(id) as T);
}

let crypto: Crypto | undefined;
let tty: Tty | undefined;

export function nodeCrypto(): Crypto {
  crypto ??= load<Crypto>('node:crypto');
  return crypto;
}

export function nodeTty(): Tty {
  tty ??= load<Tty>('node:tty');
  return tty;
}
