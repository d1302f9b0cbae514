// The CLI's command names and their one-line summaries: all the executable (bin.ts) needs to pick a command's
// bundle, and what `lockguard --help` lists.
// Invariant: data only; imports nothing (it is in every bundle, the executable's included).

/** Every command, in the order "unknown command" lists them. */
export const COMMAND_NAMES: readonly string[] = [
  'snapshot',
  'verify',
  'key',
  'status',
  'run',
  'doctor',
  'quarantine',
  'prune',
  'plan',
  'init',
  'uninstall',
  'hook',
  'completion',
];

/** One line per command, in the order `lockguard --help` lists them. */
export const SUMMARIES: Readonly<Record<string, string>> = {
  run: 'run a command (turbo, nx, pnpm -r, ...) and guard its cache saves against installs inside it',
  snapshot: 'record the lockfile fingerprints before a CI job installs, and print the cache key',
  verify: 'before a cache save: exit 0 if nothing moved since the snapshot, 1 if something did',
  key: 'print the current cache key of the fingerprint table',
  status: "show the latest run's state and report",
  doctor: 'check that this workspace is set up for lockguard (read-only)',
  quarantine: 'list, restore or drop the cache entries guarded runs withheld',
  prune: 'remove old finished runs from the ledger (.lockguard/runs), keeping what is still needed',
  plan: 'before a run: which tasks may rewrite the lockfile, and which keys that makes unstable',
  init: 'set a workspace up: install hooks, .gitignore, sound-key inputs of turbo, nx, wireit, moon, lage (prints each edit)',
  uninstall: 'take back everything init did (the way out)',
  hook: 'for the npm root prepare script: report to a guarded run',
  completion: 'print the bash completion script (source <(lockguard completion bash))',
};

/** The words that ask for help: `lockguard help run` and `lockguard --help run` show run's help. */
export const HELP_WORDS: readonly string[] = ['help', '--help', '-h'];

/**
 * The command `argv` names (after a leading `-C <dir>` / `--dir <dir>` / `--dir=<dir>`), when it is one, also
 * after a help word (`help run`: run's bundle prints run's help), `--verbose` and `--quiet` wherever they are
 * before a `--` (main.ts takes them out the same way); undefined for help alone, the version, a missing or an
 * unknown command.
 */
export function commandOf(argvIn: readonly string[]): string | undefined {
  const end = argvIn.indexOf('--');
  const argv = argvIn.filter((word, at) => (end !== -1 && at > end) || (word !== '--verbose' && word !== '--quiet'));
  const first = argv[0];
  const at = first === '-C' || first === '--dir' ? 2 : first?.startsWith('--dir=') === true ? 1 : 0;
  const word = argv[at];
  const name = word !== undefined && HELP_WORDS.includes(word) ? argv[at + 1] : word;
  return name !== undefined && COMMAND_NAMES.includes(name) ? name : undefined;
}
