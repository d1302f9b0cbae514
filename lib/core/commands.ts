// What a command line may do to the fingerprint table, judged from its words.
//
// Owns: recognizing package-manager commands that install (and so may rewrite the lockfile or the tree).
// Invariant: a guess from argv only, used to skip the pre-run check, never to decide a verdict (the table
// decides). Which runner a command starts is lib/integrations/runners/detect.ts; whether a task may write,
// for plans, is lib/integrations/plan/command-writes.ts (it also reads scripts and pnpm settings).

const PNPM_INSTALLS = new Set(['install', 'i', 'add', 'update', 'up', 'upgrade', 'remove', 'rm', 'uninstall', 'un', 'dedupe', 'import', 'link', 'ln', 'unlink', 'fetch']);
const NPM_INSTALLS = new Set(['install', 'i', 'in', 'ins', 'inst', 'insta', 'instal', 'isnt', 'isnta', 'isntal', 'isntall', 'add', 'ci', 'clean-install', 'ic', 'install-clean', 'isntall-clean', 'update', 'up', 'upgrade', 'udpate', 'uninstall', 'remove', 'rm', 'r', 'un', 'unlink', 'dedupe', 'ddp', 'prune', 'install-test', 'it', 'install-ci-test', 'cit']);
const YARN_INSTALLS = new Set(['install', 'add', 'up', 'upgrade', 'remove', 'dedupe']);
const BUN_INSTALLS = new Set(['install', 'i', 'add', 'a', 'remove', 'rm', 'update']);

function base(word: string | undefined): string {
  return (word ?? '').split('/').pop() ?? '';
}

/** The first word after the tool's own flags (`pnpm --filter b add x` -> `add`). */
function subcommand(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i] ?? '';
    if (!word.startsWith('-')) return word;
    // Flags that take a value as the next word.
    if (/^(--filter|-F|--dir|-C|--workspace|-w|--prefix|--cwd)$/.test(word) && !word.includes('=')) i++;
  }
  return undefined;
}

/** True when `argv` runs a package-manager install-like command (pnpm install/add/…, npm ci/install/…, yarn, bun install/add). */
export function isInstallCommand(argv: readonly string[]): boolean {
  const tool = base(argv[0]).replace(/\.(cjs|js|exe|cmd)$/, '');
  const rest = argv.slice(1);
  const sub = subcommand(rest);
  switch (tool) {
    case 'pnpm':
    case 'pn':
      return sub !== undefined && PNPM_INSTALLS.has(sub);
    case 'npm':
      return sub !== undefined && NPM_INSTALLS.has(sub);
    case 'yarn':
      return sub === undefined || YARN_INSTALLS.has(sub);
    case 'bun':
      return sub !== undefined && BUN_INSTALLS.has(sub);
    default:
      return false;
  }
}
