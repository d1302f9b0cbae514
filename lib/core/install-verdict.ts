// The pre-run check's answer, shared by the check of each package manager (install-check.ts for pnpm and
// npm, install-check-yarn.ts, install-check-bun.ts).
//
// Owns: the verdict's shape only. A mismatch is a value, never an exception.

export type InstallCheck =
  | { readonly ok: true; readonly checked: 'pnpm' | 'npm' | 'yarn' | 'bun' | 'nothing' }
  | {
      readonly ok: false;
      readonly reason: 'not-installed' | 'lockfile-differs' | 'package-missing';
      readonly lockfile: string;
      readonly detail: string;
      /** The frozen install that makes the tree hold the lockfile again (`pnpm install --frozen-lockfile`). */
      readonly fix?: string;
    };
