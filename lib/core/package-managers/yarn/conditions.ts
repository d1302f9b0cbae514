// Which of yarn berry's conditional packages (per-platform builds: esbuild's, turbo's, swc's) yarn installs
// here: yarn.lock's `conditions:` (`os=linux & cpu=x64`, `(os=darwin | os=linux)`, `!os=win32`, `libc=glibc`)
// judged against `supportedArchitectures` in the root .yarnrc.yml (`current` is this machine; a missing key
// is `[current]`; yarn 4.18.1's own rule, read from its bundle: an axis it does not list is no limit).
//
// Owns: `skippedLocators` (the `name@reference` of every locked package yarn leaves out here, as yarn.lock's
// `resolution:` spells it) and the small readers it needs. Used by the pre-run check (install-check.ts):
// the PnP map and node-modules state list every platform's package; yarn creates only these.
// Invariants: never parses YAML or the lockfile whole (line scans of the two files); a condition it cannot
// read counts as installed here (the check then looks for it: a refusal, never a silent pass); never throws.

export type Architectures = Readonly<Record<'os' | 'cpu' | 'libc', readonly string[] | null>>;

let libcCache: string | null | undefined;

/** yarn's `libc` here: glibc or musl on Linux (Node's report says which), none elsewhere. */
function hostLibc(): string | null {
  if (libcCache !== undefined) return libcCache;
  if (process.platform !== 'linux') libcCache = null;
  else {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: unknown } } | undefined)?.header;
    libcCache = header?.glibcVersionRuntime === undefined ? 'musl' : 'glibc';
  }
  return libcCache;
}

function listAt(lines: readonly string[], at: number, indent: number): string[] {
  const line = lines[at] ?? '';
  const inline = /:\s*\[(.*)\]\s*$/.exec(line);
  if (inline !== null)
    return (inline[1] ?? '')
      .split(',')
      .map((item) => item.trim().replace(/^["']|["']$/g, ''))
      .filter((item) => item !== '');
  const out: string[] = [];
  for (let i = at + 1; i < lines.length; i++) {
    const item = /^(\s*)-\s*["']?([^"'\s#]+)/.exec(lines[i] ?? '');
    if (item === null || (item[1] ?? '').length <= indent) break;
    out.push(item[2] ?? '');
  }
  return out;
}

/** `supportedArchitectures` of a .yarnrc.yml, `current` resolved (block or flow lists; `null` not written by hand). */
export function supportedArchitectures(rc: Buffer | undefined): Architectures {
  const here = { os: process.platform as string, cpu: process.arch as string, libc: hostLibc() };
  const lists: Record<'os' | 'cpu' | 'libc', string[]> = { os: ['current'], cpu: ['current'], libc: ['current'] };
  const lines = rc === undefined ? [] : rc.toString('utf8').split(/\r?\n/);
  const start = lines.findIndex((line) => /^supportedArchitectures:\s*$/.test(line));
  if (start !== -1) {
    for (let i = start + 1; i < lines.length && /^(\s+\S|\s*$)/.test(lines[i] ?? ''); i++) {
      const key = /^(\s+)(os|cpu|libc):/.exec(lines[i] ?? '');
      if (key !== null) lists[key[2] as 'os' | 'cpu' | 'libc'] = listAt(lines, i, (key[1] ?? '').length);
    }
  }
  const resolve = (axis: 'os' | 'cpu' | 'libc'): string[] =>
    lists[axis].flatMap((value) => (value !== 'current' ? [value] : here[axis] === null ? [] : [here[axis] as string]));
  return { os: resolve('os'), cpu: resolve('cpu'), libc: resolve('libc') };
}

/** Whether a `conditions:` expression holds for `arch` (`&` binds tighter than `|`; `!` negates; parentheses). */
export function conditionHolds(condition: string, arch: Architectures): boolean {
  const tokens = condition.match(/[()&|!]|(?:os|cpu|libc)=[a-z0-9_-]+|\S+/g) ?? [];
  let at = 0;
  const atom = (): boolean => {
    const token = tokens[at++];
    if (token === '!') return !atom();
    if (token === '(') {
      const value = either();
      at++; // ')'
      return value;
    }
    const match = /^(os|cpu|libc)=(.+)$/.exec(token ?? '');
    if (match === null) return true;
    const allowed = arch[match[1] as 'os' | 'cpu' | 'libc'];
    return allowed === null || allowed.includes(match[2] ?? '');
  };
  const both = (): boolean => {
    let value = atom();
    while (tokens[at] === '&') {
      at++;
      value = atom() && value;
    }
    return value;
  };
  const either = (): boolean => {
    let value = both();
    while (tokens[at] === '|') {
      at++;
      value = both() || value;
    }
    return value;
  };
  return either();
}

/** The locked packages (`resolution:` values) whose `conditions:` do not hold for `arch`. */
export function skippedLocators(lock: Buffer, arch: Architectures): Set<string> {
  const skipped = new Set<string>();
  const text = lock.toString('utf8');
  if (!text.includes('\n  conditions: ')) return skipped;
  let resolution = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('  resolution: ')) resolution = unquote(line.slice(14).trim());
    else if (line.startsWith('  conditions: ') && !conditionHolds(line.slice(14).trim(), arch)) skipped.add(resolution);
    else if (line !== '' && !line.startsWith(' ')) resolution = '';
  }
  return skipped;
}

function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  try {
    return JSON.parse(value) as string;
  } catch {
    return value.slice(1, -1);
  }
}
