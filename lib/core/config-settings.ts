// Reading one setting from a package manager's committed config file at the workspace root, as each
// linker's layout rule needs it (slices/layout.ts, package-managers/<pm>/).
//
// Owns: `configText`, `yamlKey`, `npmrcKey`. Invariants: bounded reads (bounded-read.ts), never throws: an
// unreadable file reads as empty; a line scan, never a parse.

import { join } from 'node:path';
import { readConfigText } from './bounded-read.js';

/** The text of `name` at `root`, or '' when it is absent or cannot be read. */
export function configText(root: string, name: string): string {
  try {
    return readConfigText(join(root, name), root) ?? '';
  } catch {
    return '';
  }
}

/** A top-level `key: value` of a YAML file's text (the value's first line, unquoted), or undefined. */
export function yamlKey(yaml: string, key: string): string | undefined {
  const match = new RegExp(`^${key}:[ \\t]*(.*)$`, 'm').exec(yaml);
  return match?.[1]
    ?.replace(/#.*$/, '')
    .trim()
    .replace(/^['"]|['"]$/g, '');
}

/** An `.npmrc` setting's value (the last assignment wins, as in npm's ini), or undefined. */
export function npmrcKey(npmrc: string, key: string): string | undefined {
  let value: string | undefined;
  for (const line of npmrc.split(/\r?\n/)) {
    const match = /^\s*([^=;#\s][^=]*?)\s*=\s*(.*?)\s*$/.exec(line);
    if (match?.[1] === key || match?.[1] === `${key}[]`) value = match[2] ?? '';
  }
  return value;
}
