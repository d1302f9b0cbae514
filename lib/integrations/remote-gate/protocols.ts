// Which protocol adapter serves a gate: the runner adapter whose remote speaks it (runners/registry.ts).
//
// Owns: `protocolAdapter(protocol)`, a fresh adapter per gate (the pipeline's remembers the task keys it saw).
// Invariants: every GateProtocol has exactly one runner adapter (test/integrations/runners/registry.test.ts).

import { RUNNERS } from '../runners/registry.js';
import type { ProtocolAdapter } from './protocol-kit.js';
import type { GateProtocol } from './types.js';

export type { ProtocolAdapter } from './protocol-kit.js';

/** A fresh adapter for `protocol`. */
export function protocolAdapter(protocol: GateProtocol): ProtocolAdapter {
  const runner = RUNNERS.find((adapter) => adapter.remote.protocol === protocol);
  if (runner?.remote.gate === undefined) throw new Error(`no runner adapter speaks ${protocol}`);
  return runner.remote.gate();
}
