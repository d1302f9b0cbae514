// Node builtins loaded on first use: node:crypto, node:tty, node:os, node:module, and any other a caller names.
//
// Owns: the one way lib code reaches these. Why: a static import (esbuild keeps it at the top of every
// bundle) loads the module on every start, whether the command needs it or not. node:crypto's internal
// modules cost about 3 ms and 200 page faults of a Node 20 start (it loads the stream machinery), and a
// `lockguard verify` that, when no entry's identity changed, hashes nothing; node:tty loads node:net and
// node:stream (about 3 ms of a Node start here), asked only when a stream is a character device
// (cli/fd-stream.ts); node:module (with the ES loader and source-map modules it loads) and node:os cost about
// 0.2 ms each of every command, used only by a few paths (a runner's binary, a dead guard's host, a signal's
// number). test/bench/README.md "The code cache".
// Invariants: the same module object on every call; works on every Node a bundle may run on: the CLI's engines
// (Node >= 20.19) all have `process.getBuiltinModule`; the pnpm, yarn and npm hooks run on whatever Node those
// tools use, and there, before Node 20.16 and 22.3, they are CommonJS bundles whose own `require` loads it.

type Crypto = typeof import('node:crypto');
type Tty = typeof import('node:tty');
type Os = typeof import('node:os');
type NodeModule = typeof import('node:module');

/** The builtin `id` ('node:zlib'), loaded on first use. */
export function builtin<T>(id: string): T {
  const loaded = process.getBuiltinModule?.(id) as T | undefined;
  return loaded !== undefined ? loaded : (require(id) as T);
}

/** An accessor of builtin `id` that loads it on its first call and returns the same module after. */
function onFirstUse<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= builtin<T>(id);
    return loaded;
  };
}

export const nodeCrypto: () => Crypto = /* @__PURE__ */ onFirstUse<Crypto>('node:crypto');
export const nodeTty: () => Tty = /* @__PURE__ */ onFirstUse<Tty>('node:tty');
export const nodeOs: () => Os = /* @__PURE__ */ onFirstUse<Os>('node:os');
export const nodeModule: () => NodeModule = /* @__PURE__ */ onFirstUse<NodeModule>('node:module');
