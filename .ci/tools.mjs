// The two system tools the suite needs and npm cannot install: strace (the watch and durability tests trace
// syscalls) and rsync (gitlab-ci-local's shell executor copies the checkout with it: test/e2e/gitlab-ci.test.ts).
// `npm test` runs it first (pretest), and so does .ci/run. Where one is missing and this is root on a machine
// with apt-get (a fresh Debian CI machine, a container), it installs them; anywhere else it says what to install
// and stops, rather than leave a handful of tests to fail on a missing command.
// Invariants: does nothing when both are on PATH; installs only these two, only through apt-get, only as root.

import { spawnSync } from 'node:child_process';

const TOOLS = ['strace', 'rsync'];
const has = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
let missing = TOOLS.filter((tool) => !has(tool));
if (missing.length > 0 && process.getuid?.() === 0 && has('apt-get')) {
  console.error(`tools: installing ${missing.join(' and ')} with apt-get`);
  const installed = spawnSync('sh', ['-c', `apt-get update -qq && apt-get install -y -qq ${missing.join(' ')}`], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (installed.status !== 0) console.error(`tools: apt-get exited ${installed.status ?? installed.signal}`);
  missing = TOOLS.filter((tool) => !has(tool));
}
if (missing.length > 0) {
  console.error(
    `tools: the test suite needs ${missing.join(' and ')} on PATH (strace: the watch and durability tests; rsync: the GitLab recipe test). Install ${missing.length === 1 ? 'it' : 'them'} with your system's package manager (Debian/Ubuntu: sudo apt-get install ${missing.join(' ')}), then run npm test again.`,
  );
  process.exit(1);
}
