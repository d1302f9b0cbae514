// `lockguard run --json`: the run's answer as one JSON object, printed on stdout after the wrapped command
// ended (the command's own stdout comes before it: the answer is the last line).
//
// Owns: the answer's shape: {version, command, exitCode, run, policy, moved, tree, caches, withheld, spared,
// staleLeft, stopped, unguarded, rush} (unguarded: each runner cache this run did not guard, with why, and how
// many saves it left where its version cannot be withheld from: what the status line says of it; rush: whether
// Rush is here, whose cache needs no withholding: integrations/runners/rush.ts). Invariants: one line (a
// consumer takes the last line of stdout), errors included (main.ts printJsonError); paths are
// workspace-relative as the status line prints them; credentials are redacted as everywhere (core/redact.ts).

import { redactRecord } from '../core/redact.js';
import type { RunFinished } from '../guard/finish.js';
import type { RushHere } from '../integrations/runners/rush.js';

export function runAnswer(version: string, run: RunFinished, rush: RushHere | undefined): string {
  const { outcome, move } = run;
  const body = {
    version,
    command: 'run',
    exitCode: run.code,
    run: run.runId,
    policy: run.policy,
    moved: (move?.files ?? []).map((file) => file.path),
    tree: move?.tree ?? null,
    caches: run.caches.map((guarded) => ({ runner: guarded.runner, dir: guarded.cache.dir })),
    withheld: outcome.withheldCount,
    spared: outcome.spared,
    staleLeft: outcome.staleLeft,
    stopped: outcome.stop?.kind ?? null,
    unguarded: [
      ...(outcome.unresolved ?? []).map((item) => ({ runner: item.runner, why: item.why })),
      ...outcome.unguarded.map((item) => ({ runner: item.runner, why: item.why, left: item.left })),
    ],
    rush: rush !== undefined,
  };
  return JSON.stringify(redactRecord(body));
}
