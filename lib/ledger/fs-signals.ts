// Early signals that a writer may have run: file-system events on the folders that hold table entries,
// and new lines in the run's event log (hook reports).
//
// Owns: one fs.watch per distinct existing parent folder (a parent, so an atomic rename is seen) plus the
// run folder, coalescing bursts into one callback, and closing everything on stop.
// Invariants: signals only make detection earlier; they never decide (the caller re-checks the table).
// A folder that cannot be watched (missing, inotify limits, deaf mounts) is skipped: the final check after
// the command exits stays authoritative.

import { watch, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';
import { RUN_FILES } from './ledger-layout.js';

export type SignalSource = 'fs-event' | 'hook';

export interface Signals {
  stop(): void;
}

/**
 * Watch the parents of `entryPaths` (workspace-relative) and `runDir`; call `onSignal(source, at)` at most
 * once per `settleMs` burst, with the time of the first event in the burst.
 */
export function watchSignals(
  root: string,
  entryPaths: readonly string[],
  runDir: string,
  onSignal: (source: SignalSource, at: number) => void,
  settleMs = 25,
): Signals {
  const folders = new Set(entryPaths.map((path) => join(root, dirname(path))));
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let first: { source: SignalSource; at: number } | undefined;
  const fire = (source: SignalSource): void => {
    if (first === undefined || (source === 'hook' && first.source !== 'hook'))
      first = { source, at: first?.at ?? Date.now() };
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      const burst = first;
      first = undefined;
      if (burst !== undefined) onSignal(burst.source, burst.at);
    }, settleMs);
  };
  const add = (folder: string, source: SignalSource, filter?: string): void => {
    try {
      const watcher = watch(folder, { persistent: false }, (_event, name) => {
        if (filter === undefined || name === filter) fire(source);
      });
      watcher.on('error', () => watcher.close());
      watchers.push(watcher);
    } catch {
      // Missing folder or no watch available: the final check still decides.
    }
  };
  for (const folder of folders) add(folder, 'fs-event');
  add(runDir, 'hook', RUN_FILES.events);
  return {
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}
