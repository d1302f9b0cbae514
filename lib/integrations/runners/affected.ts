// Withhold what moved, not everything: which projects a move touched, and which cache entries are theirs.
//
// Owns: the scope of a withholding pass (`withholdScope`: every save after the move, with the reason, or
// only those of the projects whose lockfile slice moved) and, per runner cache, which entries that scope
// spares (`entryScope`). The same two calls decide for `lockguard run` and for a dead run finished later
// (guard/withhold-pass.ts serves both), so both paths withhold the same entries.
// The scope is per project only where the slices are exact for the layout, which is measured, not assumed:
// - pnpm's isolated linker (node_modules/.modules.yaml: `nodeLinker: isolated`, no public hoisting): a
//   project resolves its own node_modules, then the root's. So the root importer's slice counts for every
//   project: pnpm 10.34.8 and 12.4.2 put `<root>/node_modules/.bin` on every package script's PATH (measured:
//   a root devDependency's bin runs from `pnpm --filter c run x`), and turbo 2.11 folds the root's external
//   dependencies into its global hash (measured: every task's hash changes with a root devDependency, only
//   b's with b's). A project's slice includes its workspace dependencies' (link: edges), so dependents follow.
//   And hoist-pattern (default `*`) links every package into node_modules/.pnpm/node_modules, where the
//   packages a project installs resolve what they require without declaring (measured: test/e2e/
//   reach-phantom.test.ts): a project that installs a package is affected when the pool moved (the diff's
//   `hoisted`, core/slices/reach.ts).
// - Only the lockfile (with the install markers that mirror it) may have moved: pnpm-workspace.yaml, a
//   pnpmfile or a patch counts for every project. The lockfile must have moved once (the state the run's
//   first check recorded is the one now: an intermediate state is not kept, so it cannot be diffed) and the
//   installed tree must hold it now (`node_modules/.pnpm/lock.yaml`).
// - npm, yarn, bun, hoisted pnpm, public hoisting, a node_modules above the root that moved: every save after the
//   move, and the reason says why.
// Entries: a runner whose adapter maps them (`projects.mapped`: turbo) has them mapped to a task by its run
// summary (folder and task graph, so a task depending on an affected one is affected) or, without one, by
// the files the entry holds (turbo/entries.ts: its `-manifest.json`, when turbo.json orders tasks only along
// package dependencies). Other runners' entries (nx, pnpm pipeline) are not mapped: every save, and why.
// Root tasks are affected by any move (they may read every package). Anything unknown is affected.
// Invariants: never withholds less than the conservative pass would when in doubt; reads only on the move
// path (a few small files); never throws for what it cannot read (that is a reason, and everything is withheld).

import { join } from 'node:path';
import { isAncestorMarkerPath } from '../../core/entries.js';
import { pnpmMarkerHolds } from '../../core/install-check.js';
import type { PackageManager } from '../../core/workspace.js';
import { isLockguardError } from '../../core/errors.js';
import type { RunHandle } from '../../ledger/ledger.js';
import { lockfileMovesAmong, type SliceMove } from '../../ledger/slice-report.js';
import { movesNow, recordedMoves, type MovedFile } from '../../ledger/verdict.js';
import type { Project } from './adapter.js';
import { adapterFor } from './registry.js';
import type { ScopeJudged } from './scope-words.js';
import type { RunnerCache, SummaryReading, TaskNode } from './types.js';

export { scopeClause, type ScopeJudged, type ScopedPass } from './scope-words.js';
import { readBounded } from '../../core/bounded-read.js';

/** Which saves after the move a pass withholds. */
export type WithholdScope =
  | { readonly kind: 'all'; readonly reason: string }
  | { readonly kind: 'projects'; readonly affected: ReadonlySet<string>; readonly projects: readonly Project[] };

/** One candidate's verdict: kept (its project's slice did not move) or withheld, with the task when known. */
interface SpareVerdict {
  readonly keep: boolean;
  readonly task?: string;
}

/**
 * Per cache: every candidate withheld (and why), or a verdict per entry; `judged()` after the pass says how
 * many were withheld only because they could not be mapped to a project, and why.
 */
export type EntryScope =
  | { readonly kind: 'all'; readonly reason: string }
  | { readonly kind: 'projects'; spare(key: string): SpareVerdict; judged(): ScopeJudged };

const LOCKFILE = 'pnpm-lock.yaml';
const TREE_MARKER = 'node_modules/.pnpm/lock.yaml';
const MODULES = 'node_modules/.modules.yaml';
const MARKERS = new Set([TREE_MARKER, MODULES]);

const MANAGER_REASON: Record<Exclude<PackageManager, 'pnpm'>, string> = {
  npm: "npm hoists packages into the root node_modules, where every project resolves them, so no project's slice bounds what it built",
  yarn: "yarn's slices are not established as exact for its layouts, so no project's slice is taken to bound what it built",
  bun: "bun's slices are not established as exact for its layouts, so no project's slice is taken to bound what it built",
};

function read(root: string, path: string): Buffer | undefined {
  try {
    return readBounded(join(root, path), { kind: 'lockfile', root });
  } catch {
    return undefined;
  }
}

/** Why pnpm's layout here lets a project reach packages outside its slice, or undefined when it does not. */
function layoutReason(root: string): string | undefined {
  const bytes = read(root, MODULES);
  let modules: { nodeLinker?: unknown; publicHoistPattern?: unknown; shamefullyHoist?: unknown };
  try {
    modules = JSON.parse(bytes?.toString('utf8') ?? '') as typeof modules;
  } catch {
    return `${MODULES} cannot be read, so the layout is not known`;
  }
  if (modules?.nodeLinker !== 'isolated')
    return `node-linker=${typeof modules?.nodeLinker === 'string' ? modules.nodeLinker : '(not recorded)'} puts packages where every project resolves them, so no project's slice bounds what it built`;
  const hoisted = Array.isArray(modules.publicHoistPattern) && modules.publicHoistPattern.length > 0;
  if (hoisted || modules.shamefullyHoist === true)
    return "public-hoist-pattern (or shamefully-hoist) puts packages in the root node_modules, where every project resolves them, so no project's slice bounds what it built";
  return undefined;
}

/**
 * The scope of the pass after a move: `moved` is every table entry the run recorded moving (its `now` as
 * first recorded), `slices` the lockfile's slice diff now (ledger/slice-report.ts).
 */
export function withholdScope(input: {
  root: string;
  manager: PackageManager;
  moved: readonly MovedFile[];
  slices: readonly SliceMove[];
}): WithholdScope {
  const all = (reason: string): WithholdScope => ({ kind: 'all', reason });
  // A node_modules above the root (core/entries.ts `ancestor-marker`): every project resolves from it what its
  // own node_modules lacks, and no slice holds it.
  const above = input.moved.find((file) => isAncestorMarkerPath(file.path));
  if (above !== undefined)
    return all(
      `${above.path} moved: a node_modules above the workspace root, where every project resolves what its own node_modules lacks, so every project is affected`,
    );
  if (input.manager !== 'pnpm') return all(MANAGER_REASON[input.manager]);
  const other = input.moved.find((file) => file.path !== LOCKFILE && !MARKERS.has(file.path));
  if (other !== undefined) return all(`${other.path} moved, which every project's install reads`);
  const lockfile = input.moved.find((file) => file.path === LOCKFILE);
  if (lockfile === undefined)
    return all('the installed tree moved without the lockfile, so which projects it touched is not known');
  const slice = input.slices.find((move) => move.lockfile === LOCKFILE);
  if (slice === undefined) return all(`${LOCKFILE} moved and came back, so what was built in between is not known`);
  if (slice.now !== lockfile.now)
    return all(`${LOCKFILE} moved more than once, and the states in between are not kept`);
  if (slice.diff === undefined || slice.projects === undefined)
    return all(`the slices of ${LOCKFILE} cannot be compared (${slice.gap ?? 'unknown'})`);
  const layout = layoutReason(input.root);
  if (layout !== undefined) return all(layout);
  const lockBytes = read(input.root, LOCKFILE);
  const tree = read(input.root, TREE_MARKER);
  if (lockBytes === undefined || tree === undefined || !pnpmMarkerHolds(lockBytes, tree))
    return all(`the installed tree does not hold what ${LOCKFILE} says now, so which projects it touched is not known`);
  const affected = new Set([
    ...slice.diff.changed.map((change) => change.importer),
    ...slice.diff.added,
    ...slice.diff.removed,
    // Unchanged slices whose reach through hoisting moved (core/slices/reach.ts): pnpm's default hoist-pattern
    // puts every package where the packages a project installs resolve the names they do not declare.
    ...(slice.diff.hoisted ?? []),
  ]);
  if (affected.has('.')) {
    // The root in `hoisted` only: its slice did not move, the pool its packages resolve from did (reach.ts).
    const why = slice.diff.hoisted?.includes('.')
      ? "the hoisted pool the root's packages resolve from moved"
      : "the root importer's slice moved";
    return all(
      `${why}, and the root's node_modules and bins reach every project (its node_modules/.bin is on every package script's PATH, whichever runner starts the script)`,
    );
  }
  return { kind: 'projects', affected, projects: slice.projects };
}

/** The project a workspace-relative path belongs to: the longest importer folder that holds it ('.' holds all). */
function projectOfPath(projects: readonly Project[], path: string): Project | undefined {
  let best: Project | undefined;
  let length = -1;
  for (const project of projects) {
    const dir = project.importer;
    const at = dir === '.' ? 0 : path === dir || path.startsWith(`${dir}/`) ? dir.length : -1;
    if (at > length) {
      best = project;
      length = at;
    }
  }
  return best;
}

/** Which of a cache's candidate entries the scope spares (each with the task it is of, for the report). */
export function entryScope(cache: RunnerCache, scope: WithholdScope, summary: SummaryReading): EntryScope {
  if (scope.kind === 'all') return scope;
  const mapping = adapterFor(cache.runner).projects;
  if (!mapping.mapped) return { kind: 'all', reason: mapping.reason };
  const { affected, projects } = scope;
  const hit = (project: Project | undefined): boolean =>
    project === undefined || project.importer === '.' || affected.has(project.importer);
  const graph = summary.graph ?? new Map<string, TaskNode>();
  const byTask = new Map([...graph.values()].map((node) => [node.task, node]));
  const memo = new Map<string, boolean>();
  /** A task is affected when its project is, or any task it depends on (a dependency missing from the graph counts). */
  const affectedTask = (node: TaskNode, path: ReadonlySet<string>): boolean => {
    const known = memo.get(node.task);
    if (known !== undefined) return known;
    if (path.has(node.task)) return true;
    const next = new Set(path).add(node.task);
    const directory = node.directory === '' ? '.' : node.directory;
    const result =
      hit(projects.find((project) => project.importer === directory)) ||
      node.dependsOn.some((dep) => {
        const depNode = byTask.get(dep);
        return depNode === undefined || affectedTask(depNode, next);
      });
    memo.set(node.task, result);
    return result;
  };
  const unmapped = new Map<string, number>();
  const unknown = (reason: string, task?: string): SpareVerdict => {
    unmapped.set(reason, (unmapped.get(reason) ?? 0) + 1);
    return { keep: false, ...(task === undefined ? {} : { task }) };
  };
  const filesOf = mapping.entryFiles(cache, projects);
  return {
    kind: 'projects',
    spare(key) {
      const node = graph.get(key);
      if (node !== undefined) return { keep: !affectedTask(node, new Set()), task: node.task };
      // Not in a summary: the entry's own files say whose it is, when the task graph follows packages.
      const found = filesOf(key);
      if (found.kind === 'unknown') return unknown(found.reason);
      const owners = new Set(found.files.map((file) => projectOfPath(projects, file)));
      const [owner] = owners;
      const task =
        owners.size === 1 && owner !== undefined
          ? `${owner.name ?? owner.importer}#${found.taskName ?? '?'}`
          : undefined;
      if (found.unordered !== undefined) return unknown(found.unordered, task);
      if (task === undefined) return unknown('their files span more than one project', task);
      return { keep: !hit(owner), task };
    },
    judged: () => ({ kind: 'projects', unmapped: [...unmapped].map(([reason, count]) => ({ reason, count })) }),
  };
}

/**
 * The scope for a run finished after its guard died (guard/recover-runs.ts), judged as `lockguard run` judges
 * its own: the moves it recorded (each with the state first seen) plus what differs now, and the slices now.
 * With no evidence of what moved, every save since it started.
 */
export async function recordedRunScope(
  run: RunHandle,
  evidence: 'recorded-move' | 'table-moved' | 'none',
): Promise<WithholdScope> {
  if (evidence === 'none') return { kind: 'all', reason: 'nothing shows what moved' };
  try {
    const recorded = recordedMoves(run.dir, run.record);
    const moved = [...recorded, ...movesNow(run).filter((file) => !recorded.some((known) => known.path === file.path))];
    const slices = await lockfileMovesAmong(
      run.record,
      moved.map((file) => file.path),
    );
    return withholdScope({ root: run.record.root, manager: run.record.manager, moved, slices });
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    return { kind: 'all', reason: `what moved cannot be read now (${error.code})` };
  }
}
