// The options every workspace command shares (`--dir`, `--scope`) and their resolution.

import { resolve } from 'node:path';
import { isScope, type Scope } from '../core/entries.js';
import { findWorkspace, type Workspace } from '../core/workspace.js';
import { oneOf, stringValue, type Options, type Parsed } from './args.js';
import type { Io } from './io.js';

export const DIR_OPTION: Options = { dir: { type: 'string', short: 'C' } };
export const SCOPE_OPTION: Options = { scope: { type: 'string' } };

export const DIR_HELP = '  -C, --dir <path>     the workspace (or a folder inside it); default: the current folder';
export const SCOPE_HELP =
  '  --scope inputs|full  inputs (default): lockfiles, workspace manifest, pnpmfile, patches;\n' +
  '                       full: inputs plus install-tree markers (node_modules/.pnpm/lock.yaml, ...)';

export function workspaceOf(parsed: Parsed, io: Io): Promise<Workspace> {
  return findWorkspace(resolve(io.cwd, stringValue(parsed, 'dir') ?? '.'));
}

export function scopeOf(parsed: Parsed, fallback: Scope): Scope {
  const value = stringValue(parsed, 'scope');
  if (value === undefined) return fallback;
  return isScope(value) ? value : oneOf('--scope', value, ['inputs', 'full']);
}
