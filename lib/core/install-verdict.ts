// The pre-run check's answer, shared by the check of each package manager (package-managers/<pm>/).
//
// Owns: the verdict's shape only. A mismatch is a value, never an exception.

import type { PackageManager } from './package-managers/names.js';

export type InstallCheck =
  | { readonly ok: true; readonly checked: PackageManager | 'nothing' }
  | {
      readonly ok: false;
      readonly reason: 'not-installed' | 'lockfile-differs' | 'package-missing';
      readonly lockfile: string;
      readonly detail: string;
      /** The frozen install that makes the tree hold the lockfile again (`pnpm install --frozen-lockfile`). */
      readonly fix?: string;
    };
