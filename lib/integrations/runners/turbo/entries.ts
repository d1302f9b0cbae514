// turbo entries without a run summary: whose project an entry is, from the files its `-manifest.json` lists.
//
// Owns: reading an entry's manifest (paths from the workspace root, so under the package's folder), the
// task name its log path gives (`packages/c/.turbo/turbo-build.log` → build), and whether turbo.json orders
// tasks only along package dependencies (`^task`, same-package tasks), without which an entry's files do
// not bound its inputs. affected.ts decides with it (runners/README.md "Per project").
// Invariants: reads only on the move path (the manifest of a candidate, the turbo.json files once per
// pass); anything unreadable is a reason (the entry is withheld), never a throw.

import { join } from 'node:path';
import type { EntryFiles, Project } from '../adapter.js';
import type { RunnerCache } from '../types.js';
import { readTurboJson } from './cache.js';
import { readConfigText } from '../../../core/bounded-read.js';

/** The files a turbo entry's `-manifest.json` lists (workspace-relative), or undefined. */
function manifestFiles(cache: RunnerCache, key: string): string[] | undefined {
  try {
    const parsed = JSON.parse(readConfigText(join(cache.dir, `${key}-manifest.json`)) ?? '') as { files?: unknown };
    if (parsed?.files === null || typeof parsed?.files !== 'object') return undefined;
    return Object.keys(parsed.files as object);
  } catch {
    return undefined;
  }
}

/** The task a turbo log path names (`packages/c/.turbo/turbo-build.log` → build), or undefined. */
function taskOfLog(files: readonly string[]): string | undefined {
  for (const file of files) {
    const match = /(?:^|\/)\.turbo\/turbo-([^/]+)\.log$/.exec(file);
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
}

/**
 * The task an entry is of, from its manifest alone: the package folder holding its log
 * (`packages/b/.turbo/turbo-build.log`) and that package's name, as turbo names tasks (`b#build`; the root's
 * `//#build`). Undefined where the manifest or the log is missing (the entry is then named by its key).
 */
export function turboEntryTask(cache: RunnerCache, key: string): string | undefined {
  for (const file of manifestFiles(cache, key) ?? []) {
    const match = /^(?:(.*)\/)?\.turbo\/turbo-([^/]+)\.log$/.exec(file);
    if (match?.[2] === undefined) continue;
    const dir = match[1] ?? '';
    if (dir === '') return `//#${match[2]}`;
    let name: unknown;
    try {
      name = (JSON.parse(readConfigText(join(cache.root, dir, 'package.json')) ?? '') as { name?: unknown }).name;
    } catch {
      name = undefined;
    }
    return `${typeof name === 'string' && name !== '' ? name : dir}#${match[2]}`;
  }
  return undefined;
}

/** True when every `dependsOn` of the turbo configs is `^task` or a same-package `task` (no `pkg#task`). */
function turboOrdersByPackages(root: string, projects: readonly Project[]): boolean {
  for (const project of projects) {
    const dir = project.importer === '.' ? root : join(root, project.importer);
    const config = readTurboJson(dir);
    if (config === undefined) {
      if (project.importer === '.') return false;
      continue;
    }
    for (const tasks of [config.tasks, config.pipeline]) {
      if (tasks === undefined) continue;
      if (tasks === null || typeof tasks !== 'object') return false;
      for (const definition of Object.values(tasks as Record<string, unknown>)) {
        const dependsOn = (definition as { dependsOn?: unknown } | null)?.dependsOn;
        if (dependsOn === undefined) continue;
        if (!Array.isArray(dependsOn) || dependsOn.some((dep) => typeof dep !== 'string' || dep.includes('#')))
          return false;
      }
    }
  }
  return true;
}

/** For one pass: what each entry's files say (turbo.json is read once, at the first entry that needs it). */
export function turboEntryFiles(cache: RunnerCache, projects: readonly Project[]): (key: string) => EntryFiles {
  let ordered: boolean | undefined;
  return (key) => {
    const files = manifestFiles(cache, key);
    if (files === undefined || files.length === 0)
      return { kind: 'unknown', reason: 'turbo wrote no -manifest.json for them' };
    ordered ??= turboOrdersByPackages(cache.root, projects);
    const unordered = ordered
      ? undefined
      : "turbo.json names other packages' tasks in dependsOn, and no run summary shows the task graph: pass --summarize";
    return { kind: 'files', files, taskName: taskOfLog(files), unordered };
  };
}
