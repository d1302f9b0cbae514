// The CLI's stdout written straight to its fd (lib/cli/fd-stream.ts), under the kernel's real refusals: a full
// non-blocking pipe (EAGAIN) hands the rest to Node's stream without losing or reordering a byte; a write after
// that waits behind what the stream holds even when the pipe has room again; a plain pipe never opens the stream; a pipe, a file and /dev/null are no terminal. A reader that goes away (EPIPE)
// is test/cli/main.test.ts's "a closed stdout is no crash".

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const MODULE = pathToFileURL(join(import.meta.dirname, '..', '..', 'lib', 'cli', 'fd-stream.js')).href;
const LINES = 20_000;

/** A child that writes LINES numbered lines through fdStream(1), 2,000 to a write, and says on stderr whether it opened the stream. */
const WRITER = `
import { fdStream } from ${JSON.stringify(MODULE)};
const out = fdStream(1, () => { process.stderr.write('stream opened\\n'); return process.stdout; });
// Blocks of 2,000 lines (98 KB, more than a pipe holds): a write the kernel takes in part before EAGAIN.
for (let i = 0; i < ${LINES}; i += 2000) {
  let block = '';
  for (let j = i; j < i + 2000; j++) block += \`line \${j} \${'x'.repeat(40)}\\n\`;
  out.write(block);
}
process.stderr.write('tty=' + out.isTTY + '\\n');
`;

function expected(): string {
  let text = '';
  for (let i = 0; i < LINES; i++) text += `line ${i} ${'x'.repeat(40)}\n`;
  return text;
}

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'lockguard-fd-stream-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a full non-blocking pipe (EAGAIN) hands the rest to the stream: every byte arrives, in order', async () => {
  // The child first opens a libuv pipe on its own stdout, as Node does for process.stdout (or a child of
  // `lockguard run` sharing the pipe may): that makes the shared file description non-blocking, so direct
  // writes fail with EAGAIN once the pipe's 64 KB are full and nobody reads.
  const script = WRITER.replace(
    "() => { process.stderr.write('stream opened\\n'); return process.stdout; }",
    "() => { process.stderr.write('stream opened\\n'); return socket; }",
  );
  assert.notEqual(script, WRITER);
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import net from 'node:net'; const socket = new net.Socket({ fd: 1, readable: false, writable: true });\n${script}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Nobody reads for a while: the pipe fills.
  child.stdout.pause();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr);
  assert.match(stderr, /stream opened/, 'the pipe never filled: the test did not reach EAGAIN');
  assert.match(stderr, /tty=false/);
  assert.equal(Buffer.concat(chunks).toString(), expected());
});

test('a write after the fallback waits behind what the stream still holds, even when the pipe has room again', async (t) => {
  // The state made on purpose: block A fills the pipe (non-blocking, nobody reading) and the stream holds its
  // rest; the child then blocks its own event loop (the stream cannot flush) while this test reads 8 KB out of
  // the pipe; then the child writes B. Written straight to the fd, B would land in that room ahead of A's rest.
  const dir = tempDir(t);
  const fifo = join(dir, 'out.fifo');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY);
  const a = 'a'.repeat(100_000);
  const b = 'b'.repeat(100);
  const script = [
    "import net from 'node:net';",
    `import { fdStream } from ${JSON.stringify(MODULE)};`,
    'const socket = new net.Socket({ fd: 1, readable: false, writable: true });',
    "const out = fdStream(1, () => { process.stderr.write('stream opened\\n'); return socket; });",
    `out.write('a'.repeat(${a.length}));`,
    "process.stderr.write('queued\\n');",
    'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);',
    `out.write('b'.repeat(${b.length}));`,
  ].join('\n');
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', writer, 'pipe'] });
  closeSync(writer);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(8192);
  const readSome = (max: number): number => {
    try {
      const read = readSync(reader, buffer, 0, max, null);
      if (read > 0) chunks.push(Buffer.from(buffer.subarray(0, read)));
      return read;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return -1;
      throw error;
    }
  };
  while (!stderr.includes('queued')) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(readSome(8192), 8192, 'the pipe did not hold a full 8 KB');
  let done = false;
  void exited.then(() => (done = true));
  for (;;) {
    const read = readSome(8192);
    if (read === 0 && done) break;
    if (read <= 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  closeSync(reader);
  assert.equal(await exited, 0, stderr);
  assert.match(stderr, /stream opened/);
  const text = Buffer.concat(chunks).toString();
  assert.equal(text.length, a.length + b.length);
  assert.equal(text, a + b, 'B was written ahead of what the stream still held of A');
});

test('a plain pipe, a file and /dev/null take the direct writes, never the stream, and are no terminal', (t) => {
  const dir = tempDir(t);
  const run = (stdout: 'pipe' | number) =>
    spawnSync(process.execPath, ['--input-type=module', '-e', WRITER], {
      stdio: ['ignore', stdout, 'pipe'],
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
  const piped = run('pipe');
  assert.equal(piped.status, 0, piped.stderr);
  assert.equal(piped.stdout, expected());
  assert.doesNotMatch(piped.stderr, /stream opened/);
  assert.match(piped.stderr, /tty=false/);

  const file = join(dir, 'out.txt');
  const fd = openSync(file, 'w');
  const toFile = run(fd);
  closeSync(fd);
  assert.equal(toFile.status, 0, toFile.stderr);
  assert.equal(readFileSync(file, 'utf8'), expected());
  assert.doesNotMatch(toFile.stderr, /stream opened/);
  assert.match(toFile.stderr, /tty=false/);

  const nullFd = openSync('/dev/null', 'w');
  const toNull = run(nullFd);
  closeSync(nullFd);
  assert.equal(toNull.status, 0, toNull.stderr);
  assert.match(toNull.stderr, /tty=false/);
});
