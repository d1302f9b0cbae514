// Where moon 2.5's configuration lives, and the few settings of `.moon/workspace.yml` lockguard reads.
//
// Owns: `moonConfigDir` (moon's config_loader: `.config/moon` when that folder exists at the root, else
// `.moon`), `moonWorkspaceFile` (the first of `workspace.{yml,yaml,jsonc,json,pkl,hcl,toml}` there, moon's
// config_finder order) and `workspaceSetting` (one nested scalar of a YAML workspace file: `remote.host`,
// `experiments.casOutputsCache`), read line by line: block mappings by indentation, plain or quoted scalars,
// comments dropped. Anything else (flow mappings, anchors, a non-YAML format) is `undefined`: unknown, never
// guessed (callers say so).
// Invariants: read-only, through the bounded reader; never throws for a file that is absent or unreadable.

import { join } from 'node:path';
import { readConfigText } from '../../../core/bounded-read.js';
import { present } from '../workspace-files.js';

/** moon's config formats, in the order moon looks for them. */
const FORMATS = ['yml', 'yaml', 'jsonc', 'json', 'pkl', 'hcl', 'toml'] as const;

/** moon's config folder, relative to the root (`.config/moon` wins when it exists). */
export function moonConfigDir(root: string): string {
  return present(join(root, '.config', 'moon')) ? '.config/moon' : '.moon';
}

/** The workspace config file moon reads, relative to the root, or undefined when there is none. */
export function moonWorkspaceFile(root: string): string | undefined {
  const dir = moonConfigDir(root);
  // Not configured (most workspaces): two lstats, not one per format.
  if (dir === '.moon' && !present(join(root, '.moon'))) return undefined;
  for (const format of FORMATS) {
    const file = `${dir}/workspace.${format}`;
    if (present(join(root, file))) return file;
  }
  return undefined;
}

/** A YAML line's indentation, key and inline value (comments and quotes off), or undefined for other lines. */
function mappingLine(line: string): { indent: number; key: string; value: string } | undefined {
  if (/^\s*(#.*)?$/.test(line)) return undefined;
  const match = /^( *)(["']?)([A-Za-z0-9_-]+)\2\s*:(?:\s+(.*))?$/.exec(line.replace(/\s+#.*$/, ''));
  if (match === null) return undefined;
  const raw = (match[4] ?? '').trim();
  const value = /^(["'])(.*)\1$/.exec(raw)?.[2] ?? raw;
  return { indent: (match[1] ?? '').length, key: match[3] ?? '', value };
}

/**
 * The scalar at `path` (`['remote', 'host']`) of a YAML workspace file's text, or undefined when it is not set
 * as a plain block mapping. An empty value (`host:`, `host: ''`) is ''.
 */
export function yamlSetting(text: string, path: readonly string[]): string | undefined {
  // The mappings matched so far (their indentation, and their children's once seen); top level is column 0.
  const parents: { indent: number; child: number | undefined }[] = [];
  let childIndent: number | undefined = 0;
  for (const line of text.split(/\r?\n/)) {
    const entry = mappingLine(line);
    if (entry === undefined) continue;
    while (parents.length > 0 && entry.indent <= (parents.at(-1)?.indent ?? 0)) {
      parents.pop();
      childIndent = parents.length === 0 ? 0 : parents.at(-1)?.child;
    }
    const parent = parents.at(-1);
    if (childIndent === undefined && parent !== undefined) childIndent = parent.child = entry.indent;
    if (entry.indent !== childIndent || entry.key !== path[parents.length]) continue;
    if (parents.length === path.length - 1) return entry.value;
    if (entry.value !== '') return undefined;
    parents.push({ indent: entry.indent, child: undefined });
    childIndent = undefined;
  }
  return undefined;
}

/** A setting of the workspace file (YAML only), as moon reads it; undefined when unset or not readable here. */
export function workspaceSetting(root: string, path: readonly string[]): string | undefined {
  const file = moonWorkspaceFile(root);
  if (file === undefined || !/\.ya?ml$/.test(file)) return undefined;
  let text: string | undefined;
  try {
    text = readConfigText(join(root, file), root);
  } catch {
    return undefined;
  }
  return text === undefined ? undefined : yamlSetting(text, path);
}
