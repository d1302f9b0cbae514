// May this shell command write a fingerprinted file? The install detector behind `lockguard plan`.
//
// Owns: splitting a script's command line into simple commands (&&, ||, ;, |, &), and recognizing the
// ones that install: pnpm install|i|add|update|up|upgrade|remove|rm|uninstall|un|dedupe|import, npm
// install|i|ci|update|up|uninstall|un|rm|remove, bare `yarn` and yarn install|add|up|upgrade|remove, bun
// install|i|add, and `pnpm run`/`pnpm exec`/`pnpm <script>` when the effective verifyDepsBeforeRun is
// `install`. A script run by name (`pnpm run x`, `npm run x`, `yarn x`, `bun run x`) is followed into the
// package's own scripts (with npm's pre/post scripts), to a fixed depth, each script once.
// Not writers: `--frozen-lockfile` (`--immutable`, `--frozen` for bun) installs, `pnpm dlx`, `npx`.
// Invariants: pure over its inputs (the scripts are passed in); a command it cannot read is not a writer
// (plans are advice: the watch decides), so the reasons name what was recognized, never guesses.

export interface WriteContext {
  /** The scripts of the package the command runs in. */
  readonly scripts: Readonly<Record<string, string>>;
  /** Effective verifyDepsBeforeRun is `install` for pnpm run/exec here. */
  readonly pnpmRunInstalls: boolean;
}

export interface WriteVerdict {
  readonly writes: boolean;
  /** What installs, e.g. "pnpm add" or "pnpm run (verifyDepsBeforeRun: install)" or "script setup: npm install". */
  readonly reason: string | undefined;
}

const PNPM_INSTALLS = new Set(['install', 'i', 'add', 'update', 'up', 'upgrade', 'remove', 'rm', 'uninstall', 'un', 'dedupe', 'import']);
const NPM_INSTALLS = new Set(['install', 'i', 'in', 'isntall', 'add', 'ci', 'clean-install', 'update', 'up', 'upgrade', 'uninstall', 'un', 'unlink', 'rm', 'r', 'remove']);
const YARN_INSTALLS = new Set(['install', 'add', 'up', 'upgrade', 'remove']);
const BUN_INSTALLS = new Set(['install', 'i', 'add', 'a', 'remove', 'rm', 'update']);
const FROZEN = new Set(['--frozen-lockfile', '--frozen-lockfile=true', '--immutable', '--frozen']);
/** pnpm options that take a value as the next word. */
const PNPM_VALUE_FLAGS = new Set(['--filter', '-F', '--dir', '-C', '--workspace-dir', '--reporter', '--loglevel', '--filter-prod', '--test-pattern', '--changed-files-ignore-pattern']);
const PNPM_BUILTINS = new Set(['audit', 'bin', 'config', 'create', 'deploy', 'dlx', 'env', 'fetch', 'help', 'init', 'licenses', 'link', 'list', 'ls', 'outdated', 'pack', 'patch', 'patch-commit', 'prune', 'publish', 'rebuild', 'root', 'server', 'setup', 'store', 'unlink', 'why', 'pipeline', 'cache', 'approve-builds', 'ignored-builds', 'self-update', 'x']);

/** Split a command line into simple commands of words (quotes removed; no expansion). */
export function simpleCommands(line: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (c === ' ' || c === '\t' || c === '\n') endWord();
    else if (c === ';' || c === '&' || c === '|' || c === '(' || c === ')') endCommand();
    else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

/** Drop `VAR=value` prefixes, `env`, `cross-env` and `npx`/`pnpm exec` wrappers around a runner binary. */
function unwrap(words: readonly string[]): string[] {
  let rest = [...words];
  for (;;) {
    while (rest.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0] as string)) rest = rest.slice(1);
    const head = rest[0];
    if (head === 'env' || head === 'cross-env' || head === 'time' || head === 'exec' || head === 'command') rest = rest.slice(1);
    else return rest;
  }
}

const base = (word: string | undefined): string => (word ?? '').split('/').pop()?.replace(/\.(c?js|cmd|exe)$/, '') ?? '';

/** The first word of `args` that is not an option (skipping the values of `valueFlags`), and its index. */
function subcommand(args: readonly string[], valueFlags: ReadonlySet<string>): [string | undefined, number] {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return [args[i + 1], i + 1];
    if (arg.startsWith('-')) {
      if (valueFlags.has(arg)) i++;
      continue;
    }
    return [arg, i];
  }
  return [undefined, -1];
}

/** Does this command line (a script body or a task command) install? */
export function commandWrites(line: string, context: WriteContext, depth = 0, seen: ReadonlySet<string> = new Set()): WriteVerdict {
  for (const raw of simpleCommands(line)) {
    const words = unwrap(raw);
    const verdict = simpleWrites(words, context, depth, seen);
    if (verdict.writes) return verdict;
  }
  return { writes: false, reason: undefined };
}

function followScript(name: string, context: WriteContext, depth: number, seen: ReadonlySet<string>, withPrePost: boolean): WriteVerdict {
  if (depth >= 8) return { writes: false, reason: undefined };
  const names = withPrePost ? [`pre${name}`, name, `post${name}`] : [name];
  for (const script of names) {
    const body = context.scripts[script];
    if (body === undefined || seen.has(script)) continue;
    const inner = commandWrites(body, context, depth + 1, new Set([...seen, script]));
    if (inner.writes) return { writes: true, reason: `script "${script}": ${inner.reason ?? 'installs'}` };
  }
  return { writes: false, reason: undefined };
}

function simpleWrites(words: readonly string[], context: WriteContext, depth: number, seen: ReadonlySet<string>): WriteVerdict {
  const tool = base(words[0]);
  const args = words.slice(1);
  const frozen = args.some((arg) => FROZEN.has(arg));
  switch (tool) {
    case 'pnpm':
    case 'pnpx': {
      if (tool === 'pnpx') return { writes: false, reason: undefined };
      const [sub, at] = subcommand(args, PNPM_VALUE_FLAGS);
      if (sub === undefined) return { writes: false, reason: undefined };
      if (PNPM_INSTALLS.has(sub)) {
        if ((sub === 'install' || sub === 'i') && frozen && !args.includes('--no-frozen-lockfile')) return { writes: false, reason: undefined };
        return { writes: true, reason: `pnpm ${sub}` };
      }
      const targetsOther = args.some((arg) => PNPM_VALUE_FLAGS.has(arg) && arg !== '--reporter' && arg !== '--loglevel') || args.includes('-r') || args.includes('--recursive');
      if (sub === 'run' || sub === 'run-script' || sub === 'exec' || sub === 'test' || sub === 't' || sub === 'start' || !PNPM_BUILTINS.has(sub)) {
        if (context.pnpmRunInstalls) return { writes: true, reason: `pnpm ${sub === 'exec' ? 'exec' : 'run'} (verifyDepsBeforeRun: install)` };
        const script = sub === 'run' || sub === 'run-script' ? args[at + 1] : sub === 't' ? 'test' : sub === 'exec' ? undefined : sub;
        if (script !== undefined && !targetsOther) return followScript(script, context, depth, seen, false);
      }
      return { writes: false, reason: undefined };
    }
    case 'npm': {
      const [sub, at] = subcommand(args, new Set(['--prefix', '-w', '--workspace']));
      if (sub === undefined) return { writes: false, reason: undefined };
      if (NPM_INSTALLS.has(sub)) return { writes: true, reason: `npm ${sub}` };
      const script = sub === 'run' || sub === 'run-script' || sub === 'rum' || sub === 'urn' ? args[at + 1] : sub === 'test' || sub === 't' || sub === 'tst' ? 'test' : sub === 'start' || sub === 'stop' || sub === 'restart' ? sub : undefined;
      if (script !== undefined && !args.includes('--prefix') && !args.some((arg) => arg === '-w' || arg === '--workspace' || arg.startsWith('--workspace='))) return followScript(script, context, depth, seen, true);
      return { writes: false, reason: undefined };
    }
    case 'yarn': {
      const [sub, at] = subcommand(args, new Set(['--cwd']));
      if (sub === undefined) return frozen ? { writes: false, reason: undefined } : { writes: true, reason: 'yarn (install)' };
      if (YARN_INSTALLS.has(sub)) return sub === 'install' && frozen ? { writes: false, reason: undefined } : { writes: true, reason: `yarn ${sub}` };
      if (sub === 'workspace' || sub === 'workspaces' || sub === 'dlx' || sub === 'exec' || sub === 'node') return { writes: false, reason: undefined };
      return followScript(sub === 'run' ? (args[at + 1] ?? '') : sub, context, depth, seen, false);
    }
    case 'bun': {
      const [sub, at] = subcommand(args, new Set(['--cwd']));
      if (sub !== undefined && BUN_INSTALLS.has(sub)) return sub === 'install' || sub === 'i' ? (frozen ? { writes: false, reason: undefined } : { writes: true, reason: `bun ${sub}` }) : { writes: true, reason: `bun ${sub}` };
      if (sub === 'run') return followScript(args[at + 1] ?? '', context, depth, seen, false);
      return { writes: false, reason: undefined };
    }
    default:
      return { writes: false, reason: undefined };
  }
}
