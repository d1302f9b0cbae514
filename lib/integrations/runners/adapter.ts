// The one interface every caching runner implements: what lockguard must know of a runner to guard it.
//
// Owns: `RunnerAdapter` (detect, cache folder, listing, what one save is, the run summary, the withholding
// specifics, per-project mapping, the dry-run plan, the remote protocol and its switches, sound keys,
// doctor's checks)
// and the small shapes only adapters and their dispatchers share.
// Invariants: types only. An adapter imports leaf modules (types, cache-dir, remote-upstream, plan's
// spawn/task-writes, remote-gate's protocol kit, sound-keys' JSONC and findings kit), never a dispatcher (registry.ts, listing.ts, index.ts):
// what it needs of the shared passes is handed to it (e.g. `withhold`'s `pass`), so the registry has no cycle.
// Each runner's folder (`turbo/`, `nx/`, `pnpm-pipeline/`) exports one object of this type from its
// index.ts; registry.ts lists them (README.md: what a new runner must provide).

import type { PnpmSettings } from '../plan/pnpm-settings.js';
import type { SpawnOptions } from '../plan/spawn-runner.js';
import type { RunnerGraph } from '../plan/types.js';
import type { ProtocolAdapter } from '../remote-gate/protocol-kit.js';
import type { GateProtocol } from '../remote-gate/types.js';
import type { PackageManager } from '../../core/workspace.js';
import type { TaskFold } from '../sound-keys/findings.js';
import type { FileEdit, SoundCheck, SoundKeysMode } from '../sound-keys/types.js';
import type { RemoteDetection } from './remote-upstream.js';
import type {
  CacheState,
  CacheUnit,
  RemoteMode,
  RemotePlan,
  RunnerCache,
  RunnerName,
  SummaryReading,
  WithholdOptions,
  WithholdPlan,
  WithholdPlanOptions,
  WithholdResult,
} from './types.js';

import type { Env } from '../../core/env.js';
export type { Env };

export type GuardedRunner = Exclude<RunnerName, 'none'>;

/** What the caller already read of the workspace's config (the table read pnpm-workspace.yaml). */
export interface ConfigHints {
  /** pnpm-workspace.yaml's bytes when the caller already read them. */
  readonly workspaceYaml?: Buffer | undefined;
}

/** One of doctor's checks as data: doctor renders it (`ok  turbo-bin ...`, and `fix:` when not ok). */
export interface DoctorCheck {
  readonly check: string;
  readonly level: 'ok' | 'warn' | 'fail';
  readonly detail: string;
  readonly fix?: string;
}

/** A pass's result, plus what lockguard could not do on this runner version. */
export interface RunnerWithholdResult extends WithholdResult {
  /** Set when this runner version cannot be guarded: why, and how many stale entries were left in the cache. */
  readonly unguarded?: { readonly why: string; readonly left: number };
  /** The runner version the pass was judged on (nx caches only). */
  readonly runnerVersion?: string;
}

/** The shared withholding pass, handed to an adapter's own `withhold` (withhold.ts). */
export interface SharedPass {
  /** The decision alone (withhold.ts `planWithhold`). */
  plan(cache: RunnerCache, before: CacheState, options: WithholdPlanOptions): WithholdPlan;
  /** The decision and the moves (withhold.ts `withhold`). */
  move(cache: RunnerCache, before: CacheState, options: WithholdOptions): Promise<WithholdResult>;
  /**
   * The result of a pass that moves nothing (withhold.ts `keepInPlace`): the plan's counts and links, and,
   * when `detail` is given, every planned entry as not moved, for that reason.
   */
  keep(plan: WithholdPlan, detail?: string): WithholdResult;
}

/** A project of the workspace as the lockfile's slices name it. */
export interface Project {
  readonly importer: string;
  readonly name: string | undefined;
}

/** What an entry's own files say about whose it is (for per-project withholding without a task graph). */
export type EntryFiles =
  | { readonly kind: 'unknown'; readonly reason: string }
  | {
      readonly kind: 'files';
      /** Workspace-relative files the entry holds. */
      readonly files: readonly string[];
      /** The task's name (`build`) when its files say it. */
      readonly taskName: string | undefined;
      /** Why the files cannot bound the entry's inputs (the task graph crosses packages), when they cannot. */
      readonly unordered: string | undefined;
    };

/** Per-project withholding: entries mapped to projects, or not (and the reason the status line gives). */
type ProjectMapping =
  | { readonly mapped: false; readonly reason: string }
  | {
      readonly mapped: true;
      /** For one pass: the reader of an entry's files (an entry the summary's task graph does not show). */
      entryFiles(cache: RunnerCache, projects: readonly Project[]): (key: string) => EntryFiles;
    };

type Gateable = Extract<RemoteDetection, { state: 'gateable' }>;

/** The child's env (and argv) that sends the runner's remote cache traffic to the gate. */
export interface Pointed {
  readonly env: Readonly<Record<string, string>>;
  readonly argv: readonly string[];
}

/**
 * The runner's remote cache: its protocol, where it is configured, how to point it at the gate, its own switch.
 * `protocol`, `gate` and `pointAt` come together; a runner whose remote no gate can stand in front of (wireit's
 * GitHub Actions cache) has none of them, and its `detect` never says `gateable`.
 */
interface RemoteSide {
  /** The cache protocol the gate speaks for this runner. */
  readonly protocol?: GateProtocol;
  /** The gate's reading of the protocol's requests: a fresh one per gate (it may remember keys). */
  gate?(): ProtocolAdapter;
  /** The remote this runner would reach from `root` with `env` and its own `argv`: read-only, never a token. */
  detect(root: string, env: Env, argv: readonly string[]): RemoteDetection;
  /** The env (and argv) that points the runner at the gate at `gateUrl`. */
  pointAt?(detection: Gateable, gateUrl: string, argv: readonly string[]): Pointed;
  /**
   * The runner's own switch where no gate stands: remote writes off (`mode` off, or auto with a possible
   * writer; `why` is the reason in words). Its note starts with `[lockguard] <label> `.
   */
  writesOff(
    mode: Exclude<RemoteMode, 'on'>,
    why: string,
    context: { readonly argv?: readonly string[]; readonly env?: Env },
  ): RemotePlan;
}

/**
 * Sound keys (integrations/sound-keys): the runner folds each project's `.lockguard-slice` into its task keys,
 * as `lockguard init --sound-keys` sets it up, and its own plan proves it.
 */
export interface SoundKeysSide {
  /**
   * The root config files that, naming the slice file, mean this runner folds it. The install hooks' copy
   * of this list (slice-files/folded-by.ts, read without loading any adapter) must say the same (tested).
   */
  readonly configFiles: readonly string[];
  /** Whether the workspace sets the runner up (init sets sound keys up there by default). */
  configured(root: string): boolean;
  /** What `init --sound-keys=<mode>` changes in the runner's config; ERR_LOCKGUARD_BAD_CONFIG before any write. */
  edits(root: string, mode: SoundKeysMode): FileEdit[];
  /**
   * Why this runner's keys cannot fold the slice files in `mode` at `root` (lage ignores gitignored files):
   * init then leaves it out and says why, instead of failing; undefined (or absent) where they can.
   */
  unsupported?(root: string, mode: SoundKeysMode): string | undefined;
  /** doctor's proof from the runner's own plan over every cached task; undefined where it defines none. */
  proof(root: string, env: Env, mode: SoundKeysMode | undefined): Promise<SoundCheck | undefined>;
  /** The cached tasks one command (`argv`, which starts this runner) runs and whether each folds its file. */
  folds(argv: readonly string[], root: string, env: Env): Promise<TaskFold[]>;
}

export interface RunnerAdapter {
  /** The name the ledger records and `--runner` takes. */
  readonly name: GuardedRunner;
  /** The runner in words for the user's lines: `turbo`, `nx`, `pnpm pipeline`. */
  readonly label: string;
  /**
   * Whether the runner installs (frozen) before it keys its tasks, so its keys fold the inputs and never the
   * install markers: a guarded run of it judges on inputs and skips the pre-run install check (pnpm pipeline).
   */
  readonly installsBeforeKeying?: true;

  // Detect.
  /** Whether one simple command (no scripts, no shell) starts this runner directly. */
  startedBy(argv: readonly string[]): boolean;
  /** Whether the workspace's own files configure it (a few lstats, small reads; never runs anything). */
  configuredAt(root: string, hints: ConfigHints): boolean;

  // The local cache.
  /** The cache dir as the runner itself resolves it (argv: the runner's command line, may be empty). */
  resolveCache(root: string, argv: readonly string[], env: Env): RunnerCache;
  /** Listing: the entries among the cache dir's `names` (one readdir done; more only for a sharded layout). */
  units(dir: string, names: readonly string[]): CacheUnit[];
  /** What one save is: every path of an entry, relative to the cache dir, moved together. */
  unitPaths(unit: CacheUnit): string[];
  /** What the runner's own summary of this run says (a missing or broken one is a note, never a throw). */
  summary(cache: RunnerCache, options: { readonly movedAt: number; readonly runStartedAt: number }): SummaryReading;
  /** Withholding specifics (nx 20 to 23 mark their task DB first); absent: the shared pass as is. */
  withhold?(
    cache: RunnerCache,
    before: CacheState,
    options: WithholdOptions,
    env: Env,
    pass: SharedPass,
  ): Promise<RunnerWithholdResult>;
  /** Per-project withholding (affected.ts). */
  readonly projects: ProjectMapping;
  /**
   * The task a cache entry is of, from the entry's own files, where the runner's summary does not name it
   * (turbo without --summarize): what `status` and the quarantine list call a withheld entry. Absent or
   * undefined: named by its key.
   */
  entryTask?(cache: RunnerCache, key: string): string | undefined;

  // Plan.
  /** The task graph of `argv` (a command that starts this runner), from the runner's own dry run. */
  plan(
    argv: readonly string[],
    options: SpawnOptions,
    settings: PnpmSettings,
    pnpmWorkspace: boolean,
  ): Promise<RunnerGraph>;

  // Remote.
  readonly remote: RemoteSide;

  // Sound keys (absent: the runner's keys cannot fold the slice files; pnpm pipeline's keys fold its inputs).
  readonly soundKeys?: SoundKeysSide;

  // Doctor.
  /** Doctor's checks for this runner, as data (none when the workspace does not use it). Read-only. */
  doctor(root: string, env: Env, manager: PackageManager): DoctorCheck[];
}
