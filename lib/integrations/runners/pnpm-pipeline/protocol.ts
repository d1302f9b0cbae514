// pnpm 12.21 pipeline's signed v8 remote cache as the gate reads it.
//
// Owns: (v8, no slug, signed) a `GET` on the task key just before each task (then GETs of the blobs its
// manifest names); after the task, `PUT`s of content-addressed blobs and last the signed manifest under
// the task key. A 404 on any GET is a miss with a warning (a missing blob: rebuild). The manifest is told
// from a blob by its key: the task key is the one GET'd before the task ran.
// Invariants: as every protocol adapter (remote-gate/protocol-kit.ts): method and path only; one adapter
// per gate (it remembers the keys it was asked for).

import {
  keyAfter,
  OTHER,
  REFUSED_RESTORE,
  REFUSED_SAVE,
  v8Error,
  type ProtocolAdapter,
} from '../../remote-gate/protocol-kit.js';

/** pnpm 12.21 pipeline's signed v8: the manifest under the task key, blobs under their digests. */
export function pipelineV8(): ProtocolAdapter {
  // Keys GET'd so far: the pipeline GETs each task key before the task runs, never a blob before its PUT.
  const asked = new Set<string>();
  return {
    protocol: 'pnpm-pipeline-v8',
    preflight: false,
    classify(method, path) {
      if (path === '/v8/artifacts/status' && method === 'GET') return OTHER;
      const key = keyAfter(path, '/v8/artifacts/');
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
    refusal: (kind) =>
      kind === 'restore' ? v8Error('not_found', REFUSED_RESTORE) : v8Error('forbidden', REFUSED_SAVE),
  };
}
