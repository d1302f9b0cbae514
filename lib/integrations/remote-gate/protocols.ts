// One adapter per cache protocol: which paths are the protocol's own, what each request is for, and
// the refusal each client takes calmly.
//
// Owns: the mapping (method, path) → restore | save | other and its key, per protocol, and the refusal
// status per kind. Measured with the real clients (test/e2e/remote-gate*.test.ts pin it; lib/README.md):
// - turbo 2.11 (v8): `GET /v8/artifacts/status`, one `GET /v8/artifacts/:hash` per task before any task
//   runs, `PUT /v8/artifacts/:hash` after each task, `POST /v8/artifacts/events`; HEAD and
//   `POST /v8/artifacts` only under `--dry`; under preflight an `OPTIONS` on the same path before each
//   (preflight.ts). A GET 404 is a silent miss; any 4xx on a PUT is one warning.
// - nx 24 (self-hosted v1): `GET|PUT /v1/cache/:hash` (decimal hashes). Only 404 on a GET is calm (any other
//   answer fails the whole run) and only 403/409 on a PUT ("not stored"; 5xx/reset is retried, then fails).
// - pnpm 12.21 pipeline (v8, no slug, signed): a `GET` on the task key just before each task (then GETs of
//   the blobs its manifest names); after the task, `PUT`s of content-addressed blobs and last the signed
//   manifest under the task key. A 404 on any GET is a miss with a warning (a missing blob: rebuild).
//   The manifest is told from a blob by its key: the task key is the one GET'd before the task ran.
// Invariants: an adapter never looks at headers, bodies or the query string (the server reads a preflight's
// `Access-Control-Request-Method` and asks `classify` about that method); a path it does not know is
// `undefined` (the server answers 404 and never contacts the upstream); keys are plain tokens (no `/`, no
// dot segments, no percent-escapes).

import type { Classified, GateProtocol } from './types.js';

const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

export interface ProtocolAdapter {
  readonly protocol: GateProtocol;
  /** The request's reading, or undefined when the path is not the protocol's. `path` has no query. */
  classify(method: string, path: string): Classified | undefined;
  /**
   * Whether the client may send a CORS-style preflight (`OPTIONS` naming the method it will send in
   * `Access-Control-Request-Method`): the server reads that one header and asks `classify` about the method.
   */
  readonly preflight: boolean;
  /** Status and body for a refused request of this kind. */
  refusal(kind: 'restore' | 'save'): { readonly status: number; readonly body: string; readonly type: string };
}

const OTHER: Classified = { kind: 'other', key: undefined, unit: 'entry' };

function tail(path: string, prefix: string): string | undefined {
  if (!path.startsWith(prefix)) return undefined;
  const key = path.slice(prefix.length);
  return KEY.test(key) && key !== '.' && key !== '..' ? key : undefined;
}

const REFUSED_SAVE = 'lockguard refused this upload: the lockfile moved during the run, so its key names the old lockfile';
const REFUSED_RESTORE = 'lockguard refused this restore: the lockfile moved during the run';
/** The v8 API's error body (turbo parses a 4xx body as `{"error": {"code", "message"}}` and prints the message). */
const v8Error = (code: string, message: string): { status: number; body: string; type: string } => ({ status: code === 'not_found' ? 404 : 403, body: JSON.stringify({ error: { code, message } }), type: 'application/json' });

/** turbo's v8 artifacts API. */
function turboV8(): ProtocolAdapter {
  return {
    protocol: 'turbo-v8',
    // turbo 2.11 under `TURBO_PREFLIGHT=true`: `OPTIONS` before every GET, PUT and events POST (preflight.ts).
    preflight: true,
    classify(method, path) {
      if (path === '/v8/artifacts/status' && method === 'GET') return OTHER;
      if (path === '/v8/artifacts/events' && method === 'POST') return OTHER;
      if (path === '/v8/artifacts' && method === 'POST') return OTHER;
      const key = tail(path, '/v8/artifacts/');
      if (key === undefined || key === 'status' || key === 'events') return undefined;
      switch (method) {
        case 'GET':
        case 'HEAD':
          return { kind: 'restore', key, unit: 'entry' };
        case 'PUT':
          return { kind: 'save', key, unit: 'entry' };
        default:
          return undefined;
      }
    },
    // 404: a silent miss. 403 on a PUT: one warning per refused upload, exit 0 (any 4xx does the same).
    refusal: (kind) => (kind === 'restore' ? v8Error('not_found', REFUSED_RESTORE) : v8Error('forbidden', REFUSED_SAVE)),
  };
}

/** nx's self-hosted cache API (OpenAPI "Nx custom remote cache specification"). */
function nxV1(): ProtocolAdapter {
  return {
    protocol: 'nx-v1',
    preflight: false,
    classify(method, path) {
      const key = tail(path, '/v1/cache/');
      if (key === undefined) return undefined;
      if (method === 'GET') return { kind: 'restore', key, unit: 'entry' };
      if (method === 'PUT') return { kind: 'save', key, unit: 'entry' };
      return undefined;
    },
    // Only 404 keeps a GET calm; 409 ("Cannot override an existing record") is nx's silent "not stored".
    refusal: (kind) => (kind === 'restore' ? { status: 404, body: `${REFUSED_RESTORE}\n`, type: 'text/plain; charset=utf-8' } : { status: 409, body: `${REFUSED_SAVE}\n`, type: 'text/plain; charset=utf-8' }),
  };
}

/** pnpm 12.21 pipeline's signed v8: the manifest under the task key, blobs under their digests. */
function pipelineV8(): ProtocolAdapter {
  // Keys GET'd so far: the pipeline GETs each task key before the task runs, never a blob before its PUT.
  const asked = new Set<string>();
  return {
    protocol: 'pnpm-pipeline-v8',
    preflight: false,
    classify(method, path) {
      if (path === '/v8/artifacts/status' && method === 'GET') return OTHER;
      const key = tail(path, '/v8/artifacts/');
      if (key === undefined || key === 'status' || key === 'events') return undefined;
      switch (method) {
        case 'GET':
        case 'HEAD':
          asked.add(key);
          // A blob GET comes only after its manifest's GET passed; refusing one is a miss (rebuild).
          return { kind: 'restore', key, unit: 'entry' };
        case 'PUT':
          return { kind: 'save', key, unit: asked.has(key) ? 'entry' : 'part' };
        default:
          return undefined;
      }
    },
    refusal: (kind) => (kind === 'restore' ? v8Error('not_found', REFUSED_RESTORE) : v8Error('forbidden', REFUSED_SAVE)),
  };
}

/** A fresh adapter (the pipeline's remembers the task keys it saw, so one per gate). */
export function protocolAdapter(protocol: GateProtocol): ProtocolAdapter {
  switch (protocol) {
    case 'turbo-v8':
      return turboV8();
    case 'nx-v1':
      return nxV1();
    case 'pnpm-pipeline-v8':
      return pipelineV8();
  }
}
