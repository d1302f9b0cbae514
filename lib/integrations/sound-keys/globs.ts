// Does a runner's input glob take in a file: the one question sound keys ask of nx's filesets and task plans.
//
// Owns: `globMatches(glob, path)` for the glob forms nx inputs use (`**`, `*`, `?`, `{a,b}`, `[...]`), with
// dot files matched as nx matches them (`{projectRoot}/**/*` hashes `.lockguard-slice`: measured, nx 24.0.6),
// and `foldsPath(globs, path)`: some include matches and no `!` exclude does.
// Invariants: pure; a glob it cannot read matches nothing (doctor then names the task: never a false "ok").

function toRegExp(glob: string): RegExp | undefined {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === '*') {
      if (glob[i + 1] === '*') {
        const slash = glob[i + 2] === '/';
        out += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else out += '[^/]*';
    } else if (char === '?') out += '[^/]';
    else if (char === '{') {
      const end = glob.indexOf('}', i);
      if (end === -1) return undefined;
      const options = glob
        .slice(i + 1, end)
        .split(',')
        .map((part) => toRegExp(part)?.source.slice(1, -1));
      if (options.some((part) => part === undefined)) return undefined;
      out += `(?:${options.join('|')})`;
      i = end;
    } else if (char === '[') {
      const end = glob.indexOf(']', i);
      if (end === -1) return undefined;
      out += `[${glob
        .slice(i + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\')}]`;
      i = end;
    } else out += char.replace(/[.+^$()|\\/]/g, '\\$&');
  }
  try {
    return new RegExp(`^${out}$`);
  } catch {
    return undefined;
  }
}

/** Whether `glob` (workspace- or project-relative, `/`-separated) matches `path`; a bare folder matches what is under it. */
export function globMatches(glob: string, path: string): boolean {
  const clean = glob.replace(/^\.\//, '').replace(/\/+$/, '');
  if (clean === '' || clean === '.') return true;
  if (path.startsWith(`${clean}/`)) return true;
  return toRegExp(clean)?.test(path) === true;
}

/** Whether a list of globs (`!` marks an exclude) takes in `path`. */
export function foldsPath(globs: readonly string[], path: string): boolean {
  const includes = globs.filter((glob) => !glob.startsWith('!'));
  const excludes = globs.filter((glob) => glob.startsWith('!')).map((glob) => glob.slice(1));
  return includes.some((glob) => globMatches(glob, path)) && !excludes.some((glob) => globMatches(glob, path));
}
