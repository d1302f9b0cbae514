// nx's self-hosted remote cache API as the gate reads it.
//
// Owns: nx 24 (self-hosted v1): `GET|PUT /v1/cache/:hash` (decimal hashes). Only 404 on a GET is calm (any
// other answer fails the whole run) and only 403/409 on a PUT ("not stored"; 5xx/reset is retried, then fails).
// Invariants: as every protocol adapter (remote-gate/protocol-kit.ts): method and path only.

import { keyAfter, REFUSED_RESTORE, REFUSED_SAVE, type ProtocolAdapter } from '../../remote-gate/protocol-kit.js';

/** nx's self-hosted cache API (OpenAPI "Nx custom remote cache specification"). */
export function nxV1(): ProtocolAdapter {
  return {
    protocol: 'nx-v1',
    preflight: false,
    classify(method, path) {
      const key = keyAfter(path, '/v1/cache/');
      if (key === undefined) return undefined;
      if (method === 'GET') return { kind: 'restore', key, unit: 'entry' };
      if (method === 'PUT') return { kind: 'save', key, unit: 'entry' };
      return undefined;
    },
    // Only 404 keeps a GET calm; 409 ("Cannot override an existing record") is nx's silent "not stored".
    refusal: (kind) =>
      kind === 'restore'
        ? { status: 404, body: `${REFUSED_RESTORE}\n`, type: 'text/plain; charset=utf-8' }
        : { status: 409, body: `${REFUSED_SAVE}\n`, type: 'text/plain; charset=utf-8' },
  };
}
