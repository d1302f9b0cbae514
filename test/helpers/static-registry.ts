// A registry of a few local packages on loopback, for end-to-end tests whose lockfiles must re-resolve a
// range between versions (an optional peer, an `npm:` alias): `file:` tarballs cannot stand in for that.
//
// The packages are made here (a package.json and an index.js exporting its version, packed with tar; or a
// tarball given, served as is), their
// packuments written as files, and a child process serves them read-only (`GET /<name>`, `GET
// /<name>/-/<file>.tgz`). Any other package's metadata is fetched from `upstream` when one is given (pnpm 12
// resolves the pnpm its `packageManager` pins through the registry, from npm's: the network the machine has),
// else 404. A child, not this process: the tests drive pnpm with spawnSync.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { freePort } from './cache-servers.js';
import { packTarball } from './tool-shims.js';

export interface RegistryPackage {
  readonly name: string;
  readonly version: string;
  /** A tarball already packed (`npm pack`), served as is; else one is made here. */
  readonly tarball?: string;
  /** Fields of the packument's version entry besides name, version and dist (bin, engines, ...). */
  readonly manifest?: Readonly<Record<string, unknown>>;
}

const SERVER = `const http = require('http'), fs = require('fs'), path = require('path');
const [dir, port, upstream] = process.argv.slice(1);
http.createServer(async (req, res) => {
  const url = decodeURIComponent(req.url.split('?')[0]);
  const tarball = /^\\/([a-z0-9-]+)\\/-\\/([a-z0-9.-]+\\.tgz)$/.exec(url);
  const file = tarball ? path.join(dir, tarball[1], tarball[2]) : /^\\/[a-z0-9-]+$/.test(url) ? path.join(dir, url.slice(1) + '.json') : undefined;
  if ((file === undefined || !fs.existsSync(file)) && upstream !== '') {
    try {
      const answer = await fetch(upstream + req.url.slice(1), { headers: { accept: req.headers.accept || 'application/json' } });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') || 'application/json' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    } catch { res.writeHead(502); res.end(); }
    return;
  }
  if (file === undefined || !fs.existsSync(file)) { res.writeHead(404, { 'content-type': 'application/json' }); res.end('{"error":"not found"}'); return; }
  res.writeHead(200, { 'content-type': tarball ? 'application/octet-stream' : 'application/json' });
  res.end(fs.readFileSync(file));
}).listen(Number(port), '127.0.0.1');
`;

/** Serve `packages` from `<dir>/registry` (other names from `upstream`, a registry URL ending in "/"); returns the registry URL. */
export async function startStaticRegistry(
  t: Pick<TestContext, 'after'>,
  dir: string,
  packages: readonly RegistryPackage[],
  upstream = '',
): Promise<string> {
  const root = join(dir, 'registry');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const byName = new Map<string, Record<string, unknown>>();
  for (const { name, version, tarball, manifest } of packages) {
    const file = join(root, name, `${name}-${version}.tgz`);
    const src = join(dir, 'registry-src', `${name}-${version}`);
    if (tarball === undefined)
      packTarball(file, src, { name, version }, `module.exports = ${JSON.stringify(version)};\n`);
    else {
      mkdirSync(join(root, name), { recursive: true });
      copyFileSync(tarball, file);
    }
    const bytes = readFileSync(file);
    const versions = byName.get(name) ?? {};
    versions[version] = {
      ...(manifest ?? { main: 'index.js' }),
      name,
      version,
      dist: {
        tarball: `${url}${name}/-/${name}-${version}.tgz`,
        integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
        shasum: createHash('sha1').update(bytes).digest('hex'),
      },
    };
    byName.set(name, versions);
  }
  for (const [name, versions] of byName) {
    const latest = Object.keys(versions).sort().at(-1) ?? '';
    writeFileSync(join(root, `${name}.json`), JSON.stringify({ name, 'dist-tags': { latest }, versions }));
  }
  const child = spawn(process.execPath, ['-e', SERVER, root, String(port), upstream], { stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ok = await fetch(`${url}${packages[0]?.name ?? 'x'}`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return url;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error('the static registry did not start within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
