// A guarded run, as a library: prepare the runners and the gates, start the command, watch it, finish.
//
// Owns: the order of a guarded run (the table read and the pre-run check, `--policy refuse`'s environment,
// the remote gates and switches, the guard record, the watch, the child) and joining an outer guarded run.
// Finishing (the final check, the withholding pass, the records) is finish.ts. What the caller should see
// comes back as events (events.ts) and as the returned `RunFinished`; the CLI renders both.
// Invariants: argv reaches the child exactly; the pre-run check, the remote decision and runner resolution
// all read the command through the same walk (package-managers/script-walk.ts); what this run guards is on
// disk (guard.json) before the child is spawned, and its pid is recorded once it is; signals after the child
// exited wait for the withholding pass (a second one stops it between entries), so a cache entry is never
// left half moved. Dead runs are finished before this is called (recover.ts, the caller's first step).

import { checkInstall } from '../core/install-check.js';
import { LockguardError } from '../core/errors.js';
import { readWorkspaceFingerprints, type WorkspaceFingerprints } from '../core/fingerprints.js';
import type { Workspace } from '../core/workspace.js';
import {
  directTurboStart,
  installsBeforeKeying,
  resolveGuard,
  runnersInCommand,
  stepsOf,
  type GuardedRunner,
  type GuardPlan,
  type RemoteMode,
  type RunnerName,
} from '../integrations/runners/index.js';
import { withWorkspaceBins } from '../integrations/package-managers/on-path.js';
import { integrationOf } from '../integrations/package-managers/registry.js';
import { preparesTreeFirst } from '../integrations/package-managers/script-walk.js';
import { runChild, type ChildEnd } from '../ledger/child.js';
import { findRun } from '../ledger/find-run.js';
import { appendEvent } from '../ledger/ledger.js';
import { liveRunsFor, processStart } from '../ledger/live.js';
import { GuardSession } from '../ledger/session.js';
import { writeGuard } from '../ledger/guard-record.js';
import type { GuardContext } from './events.js';
import { finishRun, recordOrSay, type FinishInput, type RunFinished } from './finish.js';
import { guardRecordOf } from './guard-file.js';
import { holdForQuarantine } from './pass-control.js';
import { openRemoteGates, type RemoteGateOutcome, type RemoteGates } from './remote-gate-wiring.js';
import { prepareRunners, type RunnerPrepared } from './runner-guard.js';
import { refuseSetup, type RefuseSetup } from './refuse-setup.js';
import { sliceFilesBeforeRun } from './slice-step.js';

/** How long the remote decision may wait for the runner's dry run before it assumes a writer. */
const REMOTE_PLAN_TIMEOUT_MS = 15_000;

export interface GuardedRunInput extends FinishInput {
  readonly workspace: Workspace;
  /** `--runner`: guard only this runner's cache (`none`: none); undefined: the workspace and the command decide. */
  readonly runner: RunnerName | undefined;
  readonly remote: RemoteMode;
  /** Refuse to start when the installed tree does not hold what the lockfile says (skipped where it cannot hold). */
  readonly preCheck: boolean;
  /**
   * Each project's `.lockguard-slice`, written after the pre-run check and before the command where a runner
   * folds them or lockguard wrote them before (slice-step.ts; a `slice-files` event says what changed).
   * Default true, as `lockguard run` does; false leaves the files as they are.
   */
  readonly sliceFiles?: boolean;
}

/**
 * Whether the run may hold an install, for the remote-cache decision under `--remote auto`. Asked only when
 * some guarded runner has a remote cache configured (otherwise there is no upload to stop); the plan comes
 * from the runners' own dry runs through the same walk, and any doubt (no plan in time, an error) is "may".
 */
async function mayContainWriter(
  runners: readonly GuardedRunner[],
  remote: RemoteMode,
  withRemote: ReadonlySet<string>,
  command: readonly string[],
  root: string,
  env: GuardContext['env'],
): Promise<(runner: GuardedRunner) => boolean> {
  if (remote !== 'auto') return () => true;
  const configured = runners.filter((runner) => withRemote.has(runner));
  if (configured.length === 0) return () => false;
  let writer = true;
  try {
    const { planFor } = await import('../integrations/plan/index.js');
    writer = (await planFor(command, root, env, { timeoutMs: REMOTE_PLAN_TIMEOUT_MS })).writers.length > 0;
  } catch {
    writer = true;
  }
  return (runner) => writer && configured.includes(runner);
}

/** A guarded run inside a guarded run joins it (the outer run watches the same table): the child's code, or undefined when not nested. */
export async function joinOuterRun(
  workspace: Workspace,
  command: readonly string[],
  context: GuardContext,
): Promise<number | undefined> {
  const named = context.env['LOCKGUARD_RUN'];
  if (named === undefined || named === '') return undefined;
  const outer = findRun(workspace.root, undefined, named);
  if (!liveRunsFor(workspace.root, context.env).some((run) => run.id === outer.record.id)) return undefined;
  appendEvent(outer, { type: 'nested', command, pid: process.pid });
  const end = await runChild(command, {
    cwd: context.cwd,
    env: withWorkspaceBins(context.env, context.cwd, workspace.root),
  });
  if (end.kind === 'failed')
    context.emit({ type: 'child-not-started', command: command[0] ?? '', reason: end.reason, nested: true });
  return end.code;
}

/** The pre-run check: refuse to start when the installed tree does not hold what the lockfile says. */
function preCheck(table: WorkspaceFingerprints, workspace: Workspace): void {
  const verdict = checkInstall(table);
  if (verdict.ok) return;
  throw new LockguardError(
    'ERR_LOCKGUARD_PRE_CHECK',
    `The installed tree does not hold what ${verdict.lockfile} says: ${verdict.detail}. Every cache key would fold the lockfile while outputs are built from another tree.`,
    {
      path: workspace.root,
      hint: `Install first (${verdict.fix ?? integrationOf(workspace.manager).frozenInstall}), or pass --no-pre-check.`,
    },
  );
}

/** Run `input.command` guarded, from the table read to the finished run (the caller has finished dead runs first). */
export async function guardedRun(input: GuardedRunInput, context: GuardContext): Promise<RunFinished> {
  const { workspace, command, policy } = input;
  const planned = planRun(input, context);
  const { table, guard } = planned;
  const { refuse, beforeNotes } = await beforeStart(input, context, planned);

  // A move is a change to what the runners' keys fold: the inputs (turbo, nx and pnpm pipeline key on the
  // lockfile and manifests, never on node_modules). The install markers are read for the pre-run check and
  // say what an install did; they never withhold, fail or refuse (a CI cache of node_modules is judged by
  // snapshot --scope full and verify).
  const session = new GuardSession(table, policy, command, { judged: 'inputs' });
  // The remote gate, where it can stand: restores and uploads decided at the request, no up-front switch.
  const gates = await openRemoteGates({
    runners: guard.runners,
    root: workspace.root,
    command,
    env: context.env,
    remote: input.remote,
    policy,
    session,
  });
  let child: { prepared: RunnerPrepared; end: ChildEnd };
  const runStartedAt = Date.now();
  // Held from just before the child starts: while it runs, child.ts forwards signals to it; once it has
  // exited (arm), a signal waits for the final check and the withholding pass (a second one stops the
  // pass between two entries), so a cache entry is never left half moved.
  const interrupts = holdForQuarantine(context);
  try {
    let gateOutcome: RemoteGateOutcome;
    try {
      child = await startGuarded(input, context, { guard, session, gates, refuse, runStartedAt });
    } finally {
      session.stop();
      gateOutcome = await gates.close();
      interrupts.arm();
    }
    for (const each of gateOutcome.undecided)
      context.emit({ type: 'gate-undecided', runner: each.runner, requests: each.requests });
    return await finishRun({
      context,
      input,
      session,
      end: child.end,
      prepared: child.prepared,
      guard,
      runStartedAt,
      interrupts,
      fallbacks: gates.fallbacks,
      gateOutcome,
      beforeNotes,
    });
  } finally {
    interrupts.release();
  }
}

/** What the command starts, as read before the run: its steps, the table (at the scope its runners key on), the guard plan. */
interface PlannedRun {
  readonly steps: ReturnType<typeof stepsOf>;
  /** A runner that installs before it keys (pnpm pipeline): the table holds the inputs only, no pre-run check. */
  readonly pipeline: boolean;
  readonly table: WorkspaceFingerprints;
  readonly guard: GuardPlan;
}

/** The command's steps and runners, the table read at the scope they key on, and the runners this run guards. */
function planRun(input: GuardedRunInput, context: GuardContext): PlannedRun {
  const { workspace, command } = input;
  const steps = stepsOf(command, context.cwd);
  // A runner that installs (frozen) before it keys its tasks (pnpm pipeline) folds the inputs, not the markers.
  const started =
    input.runner === undefined
      ? runnersInCommand(command, context.cwd, steps)
      : input.runner === 'none'
        ? []
        : [input.runner];
  const pipeline = started.some((runner) => installsBeforeKeying(runner));
  const table = readWorkspaceFingerprints(workspace.root, {
    scope: pipeline ? 'inputs' : 'full',
    manager: workspace.manager,
  });
  const guard = resolveGuard(
    command,
    workspace.root,
    context.cwd,
    input.runner,
    { workspaceYaml: table.files.get('pnpm-workspace.yaml') },
    steps,
  );
  return { steps, pipeline, table, guard };
}

/** Before the gates open: the pre-run check, `--policy refuse`'s environment, the caller's step (its report lines). */
async function beforeStart(
  input: GuardedRunInput,
  context: GuardContext,
  { steps, pipeline, table, guard }: PlannedRun,
): Promise<{ refuse: RefuseSetup | undefined; beforeNotes: readonly string[] }> {
  if (input.preCheck && !pipeline && !preparesTreeFirst(steps)) preCheck(table, input.workspace);
  const refuse = input.policy === 'refuse' ? refuseSetup(table, context.env) : undefined;
  if (refuse?.gap !== undefined) context.emit({ type: 'refuse-gap', gap: refuse.gap });
  // Each project's .lockguard-slice, so turbo's and nx's own keys fold what the lockfile gives it.
  const step = input.sliceFiles === false ? undefined : await sliceFilesBeforeRun(table, guard.runners);
  if (step !== undefined && step.lines.length > 0)
    context.emit({ type: 'slice-files', lines: step.lines, warning: step.warning });
  return { refuse, beforeNotes: step?.lines ?? [] };
}

/** What the child is started within: the guard plan, the session watching the table, the open gates. */
interface StartInput {
  readonly guard: GuardPlan;
  readonly session: GuardSession;
  readonly gates: RemoteGates;
  readonly refuse: RefuseSetup | undefined;
  readonly runStartedAt: number;
}

/** The remote switches, the prepared runners, the guard record and the watch, then the child, run to its end. */
async function startGuarded(
  input: GuardedRunInput,
  context: GuardContext,
  { guard, session, gates, refuse, runStartedAt }: StartInput,
): Promise<{ prepared: RunnerPrepared; end: ChildEnd }> {
  const { workspace, command, policy } = input;
  const remoteSwitch = await mayContainWriter(
    guard.runners.filter((runner) => !gates.gated.has(runner)),
    input.remote,
    gates.withRemote,
    command,
    workspace.root,
    context.env,
  );
  const prepared = prepareRunners(
    guard,
    workspace.root,
    gates.argv,
    context.env,
    input.remote,
    (runner) => !gates.gated.has(runner) && remoteSwitch(runner),
  );
  context.emit({ type: 'remote-plan', switches: prepared.switches, fallbacks: gates.fallbacks });
  // What this run guards is on disk before the child can save anything (ledger/guard-record.ts); a run
  // that guards no runner cache has nothing a later command could withhold, and writes nothing.
  if (prepared.caches.length > 0) writeGuard(session.run.dir, guardRecordOf(prepared.caches, runStartedAt));
  const guarded = prepared.caches.length;
  session.onDetect((move) => context.emit({ type: 'move-detected', move, policy, guarded }));
  session.listen();
  // The workspace's node_modules/.bin folders first on PATH, as package scripts and npx have them.
  const childEnv = {
    ...withWorkspaceBins(context.env, context.cwd, workspace.root),
    ...prepared.env,
    ...gates.env,
    ...refuse?.env,
    LOCKGUARD_RUN: session.run.dir,
  };
  // turbo's Node launcher would only start turbo's native binary: the run starts it in its place.
  const direct = directTurboStart(prepared.argv, context.cwd, childEnv);
  const end = await runChild(direct?.argv ?? prepared.argv, {
    cwd: context.cwd,
    env: direct?.env ?? childEnv,
    ...(direct === undefined ? {} : { forward: direct.forward }),
    onSpawn: (pid) =>
      recordOrSay(context, 'child-pid', () =>
        appendEvent(session.run, { type: 'child', pid, pidStart: processStart(pid) }),
      ),
  });
  return { prepared, end };
}
