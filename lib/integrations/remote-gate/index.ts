// The remote cache gate: serve a runner's cache protocol on loopback for one run, forward to the one
// configured upstream, and refuse restores and saves once the run's watch says the lockfile moved.
//
// Use:
//   const upstream = parseUpstream(url);                     // a problem is a value: fall back
//   const gate = await startGate({ protocol: 'turbo-v8', upstream, decide, onEvent });
//   ...point the runner at gate.url, run it...
//   await gate.close(); gate.stats();
// Invariant: re-exports only.

export { startGate, type Gate } from './server.js';
export { protocolAdapter } from './protocols.js';
export { parseUpstream, type Upstream } from './upstream.js';
export {
  GATE_PROTOCOLS,
  type Decision,
  type GateEvent,
  type GateProtocol,
  type GateStats,
} from './types.js';
