// What a command may touch of the outside: argv is passed in, env and streams come through `Io`.
//
// Owns: the `Io` shape, the process's own io (its streams opened on first use), ending the process once the
// command returned (`exitProcess`), color decisions (TTY only, NO_COLOR / FORCE_COLOR / TERM=dumb honoured),
// printing of errors, --quiet's filter (`quietIo`), and the sink every printed byte passes (`printableIo`: core/printable.ts's printableText
// on each write; lockguard's own GitHub annotations alone go around it, through `writeWorkflowCommand`).
// Invariants: library code never prints; only the CLI does, through these; the process never ends before
// what it printed is written; no write reaches a stream raw (main and the npm hook entry wrap their io).

import type { Env } from '../core/env.js';
import { LockguardError } from '../core/errors.js';
import { MESSAGE_MAX, printableText, printableUpTo } from '../core/printable.js';
import { fdStream } from './fd-stream.js';

export interface Io {
  readonly cwd: string;
  readonly env: Env;
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  /** `--verbose` before or after the command: long lists printed whole instead of summarised (summary.ts). */
  readonly verbose?: boolean;
}

/**
 * The process's own io. Its streams are opened on first use (a `lockguard run` that prints nothing never
 * builds them), and a closed one (`lockguard doctor | head -1`) is no error of lockguard's: what is left
 * unwritten is dropped, and the command still ends with its own exit code.
 */
export function processIo(): Io {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: fdStream(1, () => opening(process.stdout)),
    stderr: fdStream(2, () => opening(process.stderr)),
  };
}

/** The process's streams that were opened (processIo), to know when all they were given is written. */
const opened: NodeJS.WriteStream[] = [];

function opening(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  opened.push(stream);
  return stream;
}

/**
 * End the process with `code` once the command returned: at once when every opened stream has written all
 * it was given (always so for files, and for pipes and terminals on Linux, where Node writes them
 * synchronously), else when the event loop drains. Exiting at once skips tearing the heap down (about a
 * tenth of `lockguard run`'s own time); nothing is pending then: the child has exited, every file was
 * written synchronously, every gate and watcher is closed.
 * @public every CLI bundle exports it for the launcher (lib/build/bundle.mjs entryOf, lib/cli/bin.ts).
 */
export function exitProcess(code: number): void {
  process.exitCode = code;
  if (opened.every((stream) => stream.writableLength === 0)) process.exit(code);
}

export function useColor(io: Io, stream: Io['stdout']): boolean {
  if (io.env['NO_COLOR'] !== undefined && io.env['NO_COLOR'] !== '') return false;
  const force = io.env['FORCE_COLOR'];
  if (force !== undefined) return force !== '0' && force !== 'false';
  // A terminal that says it cannot show colours (Emacs' shell, some CI log viewers) gets none.
  if (io.env['TERM'] === 'dumb') return false;
  return stream.isTTY === true;
}

export function paint(io: Io, stream: Io['stdout'], code: 'yellow' | 'red' | 'green' | 'dim', text: string): string {
  if (!useColor(io, stream)) return text;
  const open = { yellow: 33, red: 31, green: 32, dim: 2 }[code];
  return `\u001b[${open}m${text}\u001b[0m`;
}

/** The stream errors go to: stderr, or under --quiet the stream its filter stands in front of. */
const LOUD = new WeakMap<Io['stderr'], Io['stderr']>();

/**
 * `io` under --quiet: what is written to its stderr (status lines, notes, progress) is dropped; warnings
 * (`warn`, `warnLines`) and errors (`printError`) are written around the filter, so they are kept by what
 * they are, not by how their text starts.
 */
export function quietIo(io: Io): Io {
  const loud = io.stderr;
  const stderr: Io['stderr'] = {
    write: () => true,
    get isTTY() {
      return loud.isTTY === true;
    },
  };
  LOUD.set(stderr, loud);
  return { ...io, stderr };
}

/** stderr as written before --quiet's filter (the stream itself when there is none). */
function loudStderr(io: Io): Io['stderr'] {
  return LOUD.get(io.stderr) ?? io.stderr;
}

/** One warning, `lockguard: warning: <text>` on stderr: kept under --quiet. */
export function warn(io: Io, text: string): void {
  loudStderr(io).write(`lockguard: warning: ${text}\n`);
}

/** Lines that are warnings as they are worded (a guarded run's events), on stderr: kept under --quiet. */
export function warnLines(io: Io, lines: readonly string[]): void {
  const stderr = loudStderr(io);
  for (const line of lines) stderr.write(`${line}\n`);
}

/** Print a LockguardError as `lockguard: message` plus its fix; anything else is a bug report. */
export function printError(ioIn: Io, error: unknown): void {
  const io = { ...ioIn, stderr: loudStderr(ioIn) };
  if (error instanceof LockguardError) {
    io.stderr.write(`${paint(io, io.stderr, 'red', 'lockguard:')} ${error.message}\n`);
    if (error.hint !== undefined) io.stderr.write(`  ${error.hint}\n`);
    return;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr.write(
    `lockguard: internal error (this is a bug; please report it with the lines below)\n${detail.replaceAll(io.cwd, '<cwd>')}\n`,
  );
}

type Stream = Io['stdout'];
/** The stream each printable stream writes to (for lockguard's own workflow commands alone). */
const RAW = new WeakMap<Stream, Stream>();

function printableStream(io: Io, raw: Stream): Stream {
  const stream: Stream = {
    write: (text: string) => raw.write(printableText(text, text.includes('\u001b') && useColor(io, raw))),
    get isTTY() {
      return raw.isTTY === true;
    },
  };
  RAW.set(stream, raw);
  return stream;
}

/** `io` with every write made printable (core/printable.ts printableText): the one sink of the CLI's output. */
export function printableIo(io: Io): Io {
  if (RAW.has(io.stdout) && RAW.has(io.stderr)) return io;
  return { ...io, stdout: printableStream(io, io.stdout), stderr: printableStream(io, io.stderr) };
}

/**
 * One GitHub workflow command lockguard means (`::error file=…::…`, built escaped by integrations/ci/github.ts),
 * written past the sink's defusing of `::` lines; still one line with every control character escaped.
 */
export function writeWorkflowCommand(stream: Stream, line: string): void {
  (RAW.get(stream) ?? stream).write(`${printableUpTo(line, MESSAGE_MAX)}\n`);
}

/**
 * `io` noting in `seen` whether anything was written to stdout (main answers an error in JSON only when the
 * command has not answered already); lockguard's own workflow commands still go around the sink.
 */
export function noticingStdout(io: Io, seen: { wrote: boolean }): Io {
  const inner = io.stdout;
  const stdout: Stream = {
    write(text: string) {
      if (text.length > 0) seen.wrote = true;
      return inner.write(text);
    },
    get isTTY() {
      return inner.isTTY === true;
    },
  };
  RAW.set(stdout, RAW.get(inner) ?? inner);
  return { ...io, stdout };
}
