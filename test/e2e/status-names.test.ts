// `lockguard status` names the entries a guarded run withheld by task, as the runner calls it (turbo
// `b#build`, nx `b:build`), with the key after it, on the poisoning scenario (test/helpers/runner-scenario.ts)
// with the real pnpm 10, turbo 2.11.11 and nx 24: turbo started as teams start it, without `--summarize`
// (no run summary: the task is read from the entry's own manifest), nx from its run summary.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { scenario } from '../helpers/runner-scenario.js';

const CASES = [
  { tool: 'turbo', argv: ['turbo', 'run', 'build'], task: 'b#build' },
  { tool: 'nx', argv: ['nx', 'run-many', '-t', 'build', '--output-style=static'], task: 'b:build' },
] as const;

for (const { tool, argv, task } of CASES) {
  test(`${tool}: status names the withheld entry by its task (${task}), then its key`, (t) => {
    const s = scenario(t, tool);
    const run = s.sh([process.execPath, BIN, 'run', '--', ...argv]);
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(s.out(), '6.0.0', 'the run built b against the install a#build did');
    const status = s.sh([process.execPath, BIN, 'status']);
    assert.equal(status.status, 0, status.stderr);
    const withheld = status.stdout.split('\n').filter((line) => /^ {11}\S/.test(line));
    assert.ok(
      withheld.some((line) => line.startsWith(`           ${tool} ${task} (`) && /\([0-9a-f]{16,}\): /.test(line)),
      `status names ${task}:\n${status.stdout}`,
    );
  });
}
