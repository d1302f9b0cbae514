// Real remote cache servers for tests, as child processes on 127.0.0.1 (a runner command run with
// spawnSync blocks the test process, so no server may live in it): turborepo-remote-cache 2.12.0 with
// local storage, and the spec server (nx's self-hosted API, or the pipeline's slug-less v8).
//
// Invariants: loopback only; storage under the given temp folder; every server is killed in `t.after`
// (and the spec server also exits when its stdin closes); start-up waits are bounded.

import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { REPO_ROOT } from './tools.js';

export interface CacheServer {
  readonly url: string;
  readonly port: number;
  /** Where entries land on disk. */
  readonly storage: string;
  /** Keys stored so far (file names, metadata files left out). */
  keys(): string[];
  /** Size in bytes of a stored key, or undefined. */
  size(key: string): number | undefined;
  readonly process: ChildProcess;
  stop(): void;
}

const SPEC_SERVER = fileURLToPath(new URL('./spec-cache-server.js', import.meta.url));
const TRC_CLI = join(REPO_ROOT, 'node_modules', 'turborepo-remote-cache', 'dist', 'cli.js');

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** The handle of a server listening on `port` whose stored entries are the files `files` lists. */
function serverAt(
  port: number,
  storage: string,
  files: () => string[],
  child: ChildProcess,
  stop: () => void,
): CacheServer {
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    storage,
    keys: () => files().map((file) => file.slice(file.lastIndexOf('/') + 1)),
    size: (key) => {
      const file = files().find((candidate) => candidate.endsWith(`/${key}`));
      return file === undefined ? undefined : statSync(file).size;
    },
    process: child,
    stop,
  };
}

function started(
  t: Pick<TestContext, 'after'>,
  child: ChildProcess,
  storage: string,
  match: RegExp,
  what: string,
): Promise<CacheServer> {
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    child.kill('SIGKILL');
  };
  t.after(stop);
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`${what} did not start within 20 s:\n${seen}`));
    }, 20_000);
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      const found = match.exec(seen);
      if (found === null) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stdout?.resume();
      resolve(
        serverAt(
          Number(found[1]),
          storage,
          () => walk(storage).filter((file) => !file.endsWith('.headers.json') && !file.endsWith('.part')),
          child,
          stop,
        ),
      );
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (!stopped) reject(new Error(`${what} exited (${code}) before it listened:\n${seen}`));
    });
  });
}

/** A free loopback port (listen on 0, close, hand it over: turborepo-remote-cache needs a PORT); nothing listens on it until then. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** turborepo-remote-cache 2.12.0 (local storage) with one static token. */
export async function startTurboRemoteCache(
  t: Pick<TestContext, 'after'>,
  dir: string,
  token: string,
  options: { bodyLimit?: number } = {},
): Promise<CacheServer> {
  const storage = join(dir, 'trc-storage');
  mkdirSync(storage, { recursive: true });
  const port = await freePort();
  const child = spawn(process.execPath, [TRC_CLI], {
    env: {
      PATH: process.env['PATH'] ?? '',
      STORAGE_PROVIDER: 'local',
      STORAGE_PATH: storage,
      STORAGE_PATH_USE_TMP_FOLDER: 'false',
      TURBO_TOKEN: token,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ...(options.bodyLimit === undefined ? {} : { BODY_LIMIT: String(options.bodyLimit) }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // It logs nothing at warn level when it starts: poll the port instead of reading a line.
  child.stdout?.resume();
  child.stderr?.resume();
  t.after(() => child.kill('SIGKILL'));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/v8/artifacts/status?slug=x`, {
      headers: { authorization: `Bearer ${token}` },
    }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('turborepo-remote-cache did not start within 20 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return serverAt(
    port,
    storage,
    () => walk(storage),
    child,
    () => child.kill('SIGKILL'),
  );
}

/** The spec server as a child process: nx's self-hosted API, the pipeline's v8, or v8 with a preflight of its own. */
export function startSpecCache(
  t: Pick<TestContext, 'after'>,
  dir: string,
  protocol: 'nx-v1' | 'v8' | 'v8-preflight',
  token: string,
  log?: string,
): Promise<CacheServer> {
  const storage = join(dir, `${protocol}-storage`);
  const child = spawn(process.execPath, [SPEC_SERVER, protocol, storage, token, ...(log === undefined ? [] : [log])], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return started(t, child, storage, /listening (\d+)/, `spec cache server (${protocol})`);
}

/** A `size`-byte artifact body made as it is read (never held whole), each piece handed to `onPiece` as it goes. */
export function artifactBody(size: number, onPiece: (piece: Buffer) => void = () => undefined): Readable {
  const chunk = createHash('sha256').update('seed').digest();
  const block = Buffer.concat(Array.from({ length: 2048 }, (_, i) => Buffer.concat([chunk, Buffer.from([i & 255])])));
  let produced = 0;
  return new Readable({
    read() {
      if (produced >= size) return void this.push(null);
      const piece = block.subarray(0, Math.min(block.length, size - produced));
      produced += piece.length;
      onPiece(piece);
      this.push(piece);
    },
  });
}
