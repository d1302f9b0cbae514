// Reading one pnpm setting where pnpm looks for it, cheaply: the environment, pnpm-workspace.yaml, .npmrc.
//
// Owns: the three lookups (an env variable by name whatever its case; a top-level `key: value` line of
// pnpm-workspace.yaml; a `key=value` line of .npmrc), each giving the value as written, quotes removed.
// Which of them a given pnpm reads, and in what order, is the caller's (it differs by pnpm major: see
// version.ts and plan/pnpm-settings.ts).
// Invariants: line scans only (no YAML or ini parse); a missing or unreadable file is no value; never spawns.

import { join } from 'node:path';
import type { Env } from '../../core/env.js';
import { readConfigText } from '../../core/bounded-read.js';

function read(path: string): string | undefined {
  try {
    return readConfigText(path) ?? '';
  } catch {
    return undefined;
  }
}

function unquote(value: string): string {
  return value.trim().replace(/^(['"])(.*)\1$/, '$2');
}

/** The value of the first of `names` set in `env` (names compared case-insensitively, as pnpm does). */
export function envSetting(
  env: Env,
  names: readonly string[],
): { readonly name: string; readonly value: string } | undefined {
  for (const name of names) {
    const found = Object.entries(env).find(([key, value]) => key.toLowerCase() === name && value !== undefined);
    if (found !== undefined) return { name, value: unquote(found[1] as string) };
  }
  return undefined;
}

/** A top-level `key: value` of `<root>/pnpm-workspace.yaml` (comments after the value dropped). */
export function workspaceYamlSetting(root: string, key: string): string | undefined {
  const text = read(join(root, 'pnpm-workspace.yaml'));
  const match = text === undefined ? null : new RegExp(`^${key}:[ \\t]*([^#\\n]*?)[ \\t]*(#.*)?$`, 'm').exec(text);
  return match?.[1] === undefined || match[1] === '' ? undefined : unquote(match[1]);
}

/** A `key=value` line of `<root>/.npmrc`. */
export function npmrcSetting(root: string, key: string): string | undefined {
  const text = read(join(root, '.npmrc'));
  const match = text === undefined ? null : new RegExp(`^[ \\t]*${key}[ \\t]*=[ \\t]*(.*?)[ \\t]*$`, 'm').exec(text);
  return match?.[1] === undefined ? undefined : unquote(match[1]);
}
