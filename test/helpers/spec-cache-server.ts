// A small remote cache server for tests, on loopback, storing entries as files: nx's self-hosted API as
// its published OpenAPI spec ("Nx custom remote cache specification", nx.dev, self-hosted caching) has
// it, or the v8 artifacts routes pnpm 12.21's pipeline uses (no slug). No npm package ships an nx server,
// and turborepo-remote-cache answers the pipeline's slug-less requests 400.
//
// nx-v1 (`/v1/cache/{hash}`), per the spec: PUT needs `Content-Length` (400 when missing or invalid),
// 401 for a missing or wrong bearer token, 403 for a read-only token, 409 when the record exists, 200
// stored; GET 200 (octet-stream), 401, 403 is not used for reads, 404 when absent.
// v8 (`/v8/artifacts/{hash}`): GET 200/404, PUT 202 (stored, or overwritten), HEAD 200/404, 401 without
// the token; `x-artifact-*` request headers are kept with the entry and sent back on GET.
// v8-preflight: v8, and an `OPTIONS` on an artifact answered as a remote with a preflight answers it (200,
// its own absolute URL as `Location`, the asked headers allowed): what turbo's preflight then follows.
// Bodies stream to and from disk (a 200 MB entry is never in memory). Run as a script, it prints
// `listening <port>` and serves until killed: e2e tests start it as a child, because the runner commands
// they drive block the test process.

import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SpecServerOptions {
  readonly protocol: 'nx-v1' | 'v8' | 'v8-preflight';
  readonly dir: string;
  /** Bearer token required (absent: no auth). */
  readonly token?: string;
  /** A token that may read but not write (nx: 403 on PUT). */
  readonly readOnlyToken?: string;
  /** Append one JSON line per request (method, path, status, bytes in; never headers) here. */
  readonly log?: string;
}

export interface SpecServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

const HASH = /^[A-Za-z0-9._-]{1,200}$/;

export function specHandler(options: SpecServerOptions): http.RequestListener {
  mkdirSync(options.dir, { recursive: true });
  let counter = 0;
  return (req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const prefix = options.protocol === 'nx-v1' ? '/v1/cache/' : '/v8/artifacts/';
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    const finish = (status: number, body = '', headers: http.OutgoingHttpHeaders = {}): void => {
      if (options.log !== undefined)
        writeFileSync(
          options.log,
          `${JSON.stringify({ t: Date.now(), method: req.method, path, status, in: bytes })}\n`,
          { flag: 'a' },
        );
      if (res.headersSent) return;
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end(body);
    };
    const drainThen = (status: number, body = ''): void => {
      if (req.complete) finish(status, body);
      else {
        req.on('end', () => finish(status, body));
        req.resume();
      }
    };
    const base = path.slice(0, path.lastIndexOf('/') + 1);
    if (path.includes('/../')) return drainThen(404);
    if (options.protocol !== 'nx-v1' && path === '/v8/artifacts/status') return drainThen(200, '{"status":"enabled"}');
    const hash = path.slice(base.length);
    // A base path before the prefix is allowed (nx keeps the one in its URL).
    if (!base.endsWith(prefix) || !HASH.test(hash)) return drainThen(404);
    if (options.protocol === 'v8-preflight' && req.method === 'OPTIONS') {
      const { port } = req.socket.address() as AddressInfo;
      return finish(200, '', {
        location: `http://127.0.0.1:${port}${req.url ?? ''}`,
        'access-control-allow-headers': String(req.headers['access-control-request-headers'] ?? ''),
        'access-control-allow-methods': 'GET, HEAD, PUT, POST',
      });
    }
    const auth = req.headers['authorization'];
    const bearer = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : undefined;
    const readOnly = options.readOnlyToken !== undefined && bearer === options.readOnlyToken;
    if (options.token !== undefined && bearer !== options.token && !readOnly)
      return drainThen(401, 'Missing or invalid authentication token.');
    const file = join(options.dir, hash);
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (!existsSync(file)) return drainThen(404);
      const meta = existsSync(`${file}.headers.json`)
        ? (JSON.parse(readFileSync(`${file}.headers.json`, 'utf8')) as Record<string, string>)
        : {};
      const headers = { 'content-type': 'application/octet-stream', 'content-length': statSync(file).size, ...meta };
      if (req.method === 'HEAD') return finish(200, '', headers);
      if (options.log !== undefined)
        writeFileSync(
          options.log,
          `${JSON.stringify({ t: Date.now(), method: req.method, path, status: 200, in: 0 })}\n`,
          { flag: 'a' },
        );
      res.writeHead(200, headers);
      createReadStream(file).pipe(res);
      return undefined;
    }
    if (req.method !== 'PUT') return drainThen(405);
    if (readOnly) return drainThen(403, 'Access forbidden: read-only token.');
    if (options.protocol === 'nx-v1') {
      const length = req.headers['content-length'];
      if (length === undefined || !/^\d+$/.test(length))
        return drainThen(400, 'Missing or invalid Content-Length header.');
      if (existsSync(file)) return drainThen(409);
    }
    const stage = `${file}.${process.pid}.${counter++}.part`;
    const out = createWriteStream(stage);
    out.on('error', () => undefined);
    req.pipe(out);
    req.on('aborted', () => {
      req.unpipe(out);
      out.destroy();
      rmSync(stage, { force: true });
    });
    out.on('finish', () => {
      if (!req.complete) {
        rmSync(stage, { force: true });
        return;
      }
      renameSync(stage, file);
      const meta = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name.startsWith('x-artifact-')));
      if (Object.keys(meta).length > 0) writeFileSync(`${file}.headers.json`, JSON.stringify(meta));
      finish(options.protocol === 'nx-v1' ? 200 : 202, options.protocol === 'nx-v1' ? '' : '{"urls":[]}');
    });
    return undefined;
  };
}

export async function startSpecServer(options: SpecServerOptions): Promise<SpecServer> {
  const server = http.createServer(specHandler(options));
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// As a script: `node spec-cache-server.js <nx-v1|v8|v8-preflight> <dir> [token] [log]`.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [protocol, dir, token, log] = process.argv.slice(2);
  if ((protocol !== 'nx-v1' && protocol !== 'v8' && protocol !== 'v8-preflight') || dir === undefined) {
    process.stderr.write('usage: spec-cache-server <nx-v1|v8|v8-preflight> <dir> [token] [log]\n');
    process.exit(2);
  }
  const server = await startSpecServer({
    protocol,
    dir,
    ...(token === undefined || token === '' ? {} : { token }),
    ...(log === undefined ? {} : { log }),
  });
  process.stdout.write(`listening ${server.port}\n`);
  // Exits with its parent: a test that forgets it cannot leave it behind.
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}
