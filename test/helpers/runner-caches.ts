// Synthetic runner caches for fast tests: real files in the real layouts, written at chosen moments.

import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function write(path: string, data: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data);
}

/** A turbo entry: `<hash>.tar.zst`, `-meta.json`, `-manifest.json`. */
export function turboEntry(dir: string, hash: string, body = `zst:${hash}`): void {
  write(join(dir, `${hash}.tar.zst`), body);
  write(join(dir, `${hash}-meta.json`), JSON.stringify({ hash, duration: 1 }));
  write(join(dir, `${hash}-manifest.json`), JSON.stringify({ version: 1, files: {} }));
}

export function nxEntry(dir: string, hash: string): void {
  write(join(dir, hash, 'packages', 'b', 'dist', 'out.json'), `{"hash":"${hash}"}`);
  write(join(dir, 'terminalOutputs', hash), `output of ${hash}\n`);
}

export function pipelineEntry(dir: string, key: string): void {
  write(
    join(dir, 'tasks', key.slice(0, 2), key, 'meta.json'),
    JSON.stringify({ version: 2, task: 'packages/b#build' }),
  );
  write(join(dir, 'tasks', key.slice(0, 2), key, 'outputs', 'dist', 'out.json'), `{"key":"${key}"}`);
}

/** Set a path's mtime (its ctime becomes now: only mtime says when an entry was written). */
export function age(path: string, mtimeMs: number): void {
  utimesSync(path, new Date(mtimeMs), new Date(mtimeMs));
}
