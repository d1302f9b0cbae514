// Which up-front cache keys a task graph may make stale: the stability gate (lib/README.md "Key stability").
//
// Owns: `classifyKeys(graph)`: for every task, whether the key a runner takes before the run starts is
// stable (nothing in the run can move what it names) or unstable, with the writers that make it so.
//
// THE RULE: "the stability gate classes every reader after an uncached
// writer, and every non-folding reader after a cached one, unstable". Read here as:
// - a *writer* is a task that may write a fingerprinted file (its command installs: `mayWrite`);
// - a *reader* is every other task (and a writer is a reader of the writers before it);
// - *after* W means the task may start once W has run: it depends on W, directly or through others
//   ("runs after"), or it is not ordered against W at all, so a parallel scheduler may start it after W
//   ("may run after"). Only W's own prerequisites are safe: they finish before W starts.
// - an *uncached* writer runs its command on every run, so the fingerprint may move on every run: every
//   key taken before it names bytes that will be gone. Every reader after it is unstable.
// - a *cached* writer runs only on a miss, and its key folds the fingerprint. A reader whose key folds
//   the fingerprint too (`foldsFingerprint`) is caught by the watch when the writer does move it (its
//   saves are withheld, the next run keys on the new bytes): stable. A reader whose key does not fold
//   the fingerprint cannot be caught that way: unstable.
// Examples (a#build installs, b#build depends on a#build, c#build is independent, d#lint is a's
// prerequisite):
//   a uncached            -> b unstable (runs after), c unstable (may run after), d stable, a stable
//   a cached, b folds     -> b stable;   a cached, b does not fold -> b unstable
//   no task may write     -> every key stable
// A writer's own key is judged like any reader's (only writers before it matter); the watch guards
// its own save.
// Invariants: pure (no I/O); a cycle or a dependency on an unknown task is ERR_LOCKGUARD_PLAN naming it.

import { LockguardError } from './errors.js';

export interface PlanTask {
  /** Unique id, as the runner names it: "b#build", "@x/b:build". */
  readonly id: string;
  /** Ids of the tasks that must finish before this one starts. */
  readonly dependsOn: readonly string[];
  /** The task may write a fingerprinted file (its command installs). */
  readonly mayWrite: boolean;
  /** The runner caches this task (it is skipped on a hit). */
  readonly cached: boolean;
  /** The task's key folds the workspace fingerprint (the lockfile). */
  readonly foldsFingerprint: boolean;
  /** Why it may write, for reports: "runs pnpm install". */
  readonly writeReason?: string;
}

export interface TaskGraph {
  readonly tasks: readonly PlanTask[];
}

export type Ordering = 'runs-after' | 'may-run-after';

export interface Destabilizer {
  readonly writer: string;
  readonly writerCached: boolean;
  readonly ordering: Ordering;
}

export interface KeyClass {
  readonly id: string;
  readonly stability: 'stable' | 'unstable';
  readonly writer: boolean;
  /** The writers that make this key unstable (empty when stable), ordered ones first. */
  readonly because: readonly Destabilizer[];
}

export interface KeyClassification {
  readonly tasks: readonly KeyClass[];
  readonly writers: readonly string[];
  readonly unstable: readonly string[];
}

function planError(message: string): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_PLAN', message, {
    hint: "Check the runner's task graph (its dry run) for the task named.",
  });
}

/** Transitive closure along `next` from `start` (start excluded). */
function closure(start: string, next: (id: string) => readonly string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...next(start)];
  while (todo.length > 0) {
    const id = todo.pop() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    // One push per id: a spread of a task's 150,000 dependents would pass them as arguments.
    for (const more of next(id)) todo.push(more);
  }
  return seen;
}

export function classifyKeys(graph: TaskGraph): KeyClassification {
  if (!Array.isArray(graph?.tasks)) throw planError('classifyKeys takes a task graph: { tasks: [...] }.');
  const byId = new Map<string, PlanTask>();
  for (const task of graph.tasks) {
    if (typeof task?.id !== 'string' || !Array.isArray(task.dependsOn))
      throw planError('Every task of the graph needs an id (a string) and dependsOn (an array of ids).');
    if (byId.has(task.id)) throw planError(`The task graph names "${task.id}" twice.`);
    byId.set(task.id, task);
  }
  const dependents = new Map<string, string[]>();
  for (const task of graph.tasks) {
    for (const dep of task.dependsOn) {
      if (!byId.has(dep)) throw planError(`The task "${task.id}" depends on "${dep}", which is not in the task graph.`);
      // Appended in place: a copy per edge made one writer with 150,000 dependents take 158 s (an audit).
      const list = dependents.get(dep);
      if (list === undefined) dependents.set(dep, [task.id]);
      else list.push(task.id);
    }
  }
  assertAcyclic(byId);
  const writers = graph.tasks.filter((task) => task.mayWrite);
  const because = new Map<string, Destabilizer[]>();
  for (const writer of writers) {
    const before = closure(writer.id, (id) => byId.get(id)?.dependsOn ?? []);
    const after = closure(writer.id, (id) => dependents.get(id) ?? []);
    for (const task of graph.tasks) {
      if (task.id === writer.id || before.has(task.id)) continue;
      if (writer.cached && task.foldsFingerprint) continue;
      const list = because.get(task.id) ?? [];
      list.push({
        writer: writer.id,
        writerCached: writer.cached,
        ordering: after.has(task.id) ? 'runs-after' : 'may-run-after',
      });
      because.set(task.id, list);
    }
  }
  const tasks = graph.tasks.map((task): KeyClass => {
    const list = (because.get(task.id) ?? []).sort((a, b) =>
      a.ordering === b.ordering ? 0 : a.ordering === 'runs-after' ? -1 : 1,
    );
    return { id: task.id, stability: list.length === 0 ? 'stable' : 'unstable', writer: task.mayWrite, because: list };
  });
  return {
    tasks,
    writers: writers.map((task) => task.id),
    unstable: tasks.filter((task) => task.stability === 'unstable').map((task) => task.id),
  };
}

function assertAcyclic(byId: ReadonlyMap<string, PlanTask>): void {
  const state = new Map<string, 1 | 2>();
  for (const start of byId.keys()) {
    if (state.has(start)) continue;
    const stack: [string, number][] = [[start, 0]];
    state.set(start, 1);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as [string, number];
      const deps = byId.get(frame[0])?.dependsOn ?? [];
      if (frame[1] >= deps.length) {
        state.set(frame[0], 2);
        stack.pop();
        continue;
      }
      const dep = deps[frame[1]++] as string;
      if (state.get(dep) === 1) throw planError(`The task graph has a cycle through "${dep}".`);
      if (!state.has(dep)) {
        state.set(dep, 1);
        stack.push([dep, 0]);
      }
    }
  }
}
