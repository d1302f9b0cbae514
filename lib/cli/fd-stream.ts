// The CLI's stdout and stderr, written straight to their file descriptors.
//
// Owns: writing with fs.writeSync until the kernel refuses, then handing the rest, and every later write, to
// Node's own stream for that fd (`open`: process.stdout / process.stderr); and whether the fd is a terminal.
// Why: Node's stream for a pipe or a file loads node:stream and some twenty modules on first use, about 3 ms
// (5%) of a Node start on the bench's machine, for a `verify` that prints one line; `isatty` loads
// node:tty, which loads node:net: it is asked only of a character device (a terminal or /dev/null).
// Invariants:
// - Bytes reach the fd in the order they were written: once the stream is opened, every write goes through it.
// - A reader that went away (EPIPE) is no error: what is left is dropped, as io.ts's stream handler did.
// - Any other refusal (EAGAIN on a full non-blocking pipe, ENOSPC, EBADF) hands the unwritten rest to the stream,
//   which behaves as it always did (waits, or raises its error).
// - `opened` receives the stream when one is opened (io.ts exitProcess waits for what it still holds).

import { fstatSync, writeSync } from 'node:fs';
import { nodeTty } from '../core/lazy-builtins.js';

export interface FdStream {
  write(text: string): boolean;
  readonly isTTY: boolean;
}

export function fdStream(fd: 1 | 2, open: () => NodeJS.WriteStream): FdStream {
  let stream: NodeJS.WriteStream | undefined;
  let closed = false;
  let tty: boolean | undefined;
  const viaStream = (data: string | Uint8Array): boolean => {
    if (stream === undefined) {
      stream = open();
      stream.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
      });
    }
    return stream.write(data);
  };
  return {
    write(text) {
      if (closed) return true;
      if (stream !== undefined) return viaStream(text);
      const bytes = Buffer.from(text, 'utf8');
      let offset = 0;
      while (offset < bytes.length) {
        try {
          offset += writeSync(fd, bytes, offset);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EPIPE') {
            closed = true;
            return true;
          }
          return viaStream(bytes.subarray(offset));
        }
      }
      return true;
    },
    get isTTY() {
      if (stream !== undefined) return stream.isTTY === true;
      if (tty === undefined) {
        try {
          tty = fstatSync(fd).isCharacterDevice() && nodeTty().isatty(fd);
        } catch {
          tty = false;
        }
      }
      return tty;
    },
  };
}
