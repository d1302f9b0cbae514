// Reading a script's command line the way a POSIX shell splits it, far enough to know what it runs.
//
// Owns: quoting a word for a line (`quoteWord`), splitting a line into simple commands (`&&`, `||`, `;`, `|`, `&`, parentheses), quote removal, and
// dropping what only sets up a command (`VAR=value` prefixes, `env`, `cross-env`, `time`, `exec`, `command`).
// Invariants: pure; no expansion (`$VAR`, globs and substitutions stay words): a command it cannot read is
// simply not recognized later, never guessed.

/** `word` as one shell word: single-quoted when it holds blanks, quotes or backslashes. */
export function quoteWord(word: string): string {
  return /[\s"'\\]/.test(word) ? `'${word.replaceAll("'", "'\\''")}'` : word;
}

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
    } else if (c === ' ' || c === '\t' || c === '\n' || c === '\r') endWord();
    else if (c === ';' || c === '&' || c === '|' || c === '(' || c === ')') endCommand();
    else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

const PREFIXES = new Set(['env', 'cross-env', 'cross-env-shell', 'time', 'exec', 'command', 'nohup', 'dotenv']);

/** Drop `VAR=value` prefixes and launchers that only set up the command they run. */
export function unwrapCommand(words: readonly string[]): string[] {
  let rest = [...words];
  for (;;) {
    while (rest.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0] as string)) rest = rest.slice(1);
    const head = rest[0];
    if (head !== undefined && PREFIXES.has(head)) {
      rest = rest.slice(1);
      // `dotenv -e .env -- cmd`, `env -i cmd`: skip the launcher's own options up to the command.
      while (rest[0] !== undefined && rest[0].startsWith('-'))
        rest = rest[0] === '--' ? rest.slice(1) : rest.slice(rest[0] === '-e' ? 2 : 1);
      continue;
    }
    return rest;
  }
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ash', 'ksh']);

/** The line a `sh -c '<line>'` runs, or undefined when `words` is no shell invocation with `-c`. */
export function shellLine(words: readonly string[]): string | undefined {
  const head = words[0];
  if (head === undefined) return undefined;
  const name = head.slice(head.lastIndexOf('/') + 1);
  if (!SHELLS.has(name)) return undefined;
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as string;
    if (!word.startsWith('-')) return undefined;
    if (word === '-c' || (/^-[a-z]*c[a-z]*$/.test(word) && word !== '--')) return words[i + 1];
  }
  return undefined;
}
