// turbo's v8 artifacts API as the gate reads it.
//
// Owns: turbo 2.11 (v8): `GET /v8/artifacts/status`, one `GET /v8/artifacts/:hash` per task before any
// task runs, `PUT /v8/artifacts/:hash` after each task, `POST /v8/artifacts/events`; HEAD and
// `POST /v8/artifacts` only under `--dry`; under preflight an `OPTIONS` on the same path before each
// (remote-gate/preflight.ts). A GET 404 is a silent miss; any 4xx on a PUT is one warning.
// Invariants: as every protocol adapter (remote-gate/protocol-kit.ts): method and path only.

import {
  keyAfter,
  OTHER,
  REFUSED_RESTORE,
  REFUSED_SAVE,
  v8Error,
  type ProtocolAdapter,
} from '../../remote-gate/protocol-kit.js';

export function turboV8(): ProtocolAdapter {
  return {
    protocol: 'turbo-v8',
    // turbo 2.11 under `TURBO_PREFLIGHT=true`: `OPTIONS` before every GET, PUT and events POST (preflight.ts).
    preflight: true,
    classify(method, path) {
      if (path === '/v8/artifacts/status' && method === 'GET') return OTHER;
      if (path === '/v8/artifacts/events' && method === 'POST') return OTHER;
      if (path === '/v8/artifacts' && method === 'POST') return OTHER;
      const key = keyAfter(path, '/v8/artifacts/');
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
    refusal: (kind) =>
      kind === 'restore' ? v8Error('not_found', REFUSED_RESTORE) : v8Error('forbidden', REFUSED_SAVE),
  };
}
