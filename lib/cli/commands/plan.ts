// `lockguard plan -- <runner command>`: before a run, which tasks may rewrite the lockfile and which
// up-front cache keys that makes unstable; for turbo and nx, which cached tasks' keys fold their project's
// .lockguard-slice (integrations/sound-keys/plan.ts). Exit 0: every key stable; 1: some unstable; 2: error.

import { expectedSliceFiles } from '../../ledger/slice-pass.js';
import { planFor } from '../../integrations/plan/index.js';
import { SLICE_FILE, soundKeysFix, soundKeysMode } from '../../integrations/sound-keys/index.js';
import { hasSoundKeys, sliceKeysFor } from '../../integrations/sound-keys/plan.js';
import { LockguardError } from '../../core/errors.js';
import { redactRecord, redactText } from '../../core/redact.js';
import { flag, parse } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { paint, type Io } from '../io.js';
import type { Command } from '../command.js';
import { DIR_HELP, DIR_OPTION, workspaceOf } from '../workspace-option.js';

const help = `Usage: lockguard plan [options] -- <runner command>

Builds the task graph the way the runner itself reports it, without running anything:
  turbo run <tasks> ...          (turbo run ... --dry=json)
  nx run-many -t <targets> ...   (nx ... --graph=stdout; also nx run, nx affected)
  pnpm pipeline [name]           (pnpm 12: pnpm pipeline --dry-run --json)
  pnpm -r run <script>, pnpm --filter <sel> <script>   (workspace topology and scripts)
  lerna run <script> [--scope|--ignore]   (the nx run-many Lerna starts, through Lerna's own nx)
  npx/pnpm exec/pnpm run <root script> wrapping any of these; any other command is one task.

A task may rewrite the lockfile when its command installs (pnpm install|add|update|remove|dedupe, npm
install|ci|update|uninstall, yarn [install|add|up|remove], bun install|add), also through the root's
package scripts it calls, and when it is started with pnpm run/exec while verifyDepsBeforeRun is "install"
(the default since pnpm 11). Frozen-lockfile installs do not. Another workspace's script (npm -w, yarn
workspace, foreach) is not read: the plan notes it; an install from inside a program shows only in
lockguard run, which guards it. A key taken before the run is unstable when its
task runs after an uncached writer, or after a cached one without folding the lockfile (turbo, nx and
pnpm pipeline keys never re-read it).

Options:
${DIR_HELP}
  --json               print {runner, lockfile, tasks: [{id, writer, writeReason, stability, reasons}],
                       writers, unstable, notes, verdict, packageManager: {name, version, path},
                       soundKeys: {folded, leftOut} (turbo and nx: the cached tasks whose keys fold, or leave
                       out, their project's .lockguard-slice, from one more dry run)}
  -h, --help           this text

Exit codes: 0 every key stable, 1 some keys unstable, 2 error (the runner's dry run failed, bad usage).
`;

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const parsed = parse('plan', argv, { ...DIR_OPTION, json: { type: 'boolean' } }, true);
    if (!argv.includes('--') || parsed.positionals.length === 0) {
      throw new LockguardError('ERR_LOCKGUARD_USAGE', 'Expected the runner command after "--" (lockguard plan).', {
        hint: 'For example: lockguard plan -- turbo run build',
      });
    }
    const workspace = await workspaceOf(parsed, io);
    const plan = await planFor(parsed.positionals, workspace.root, io.env);
    const code = plan.unstable.length === 0 ? EXIT.ok : EXIT.moved;
    const soundKeys = hasSoundKeys(plan.runner)
      ? await sliceKeysFor(parsed.positionals, workspace.root, io.env, await expectedSliceFiles(workspace.root))
      : undefined;
    if (flag(parsed, 'json')) {
      io.stdout.write(
        `${JSON.stringify(redactRecord(soundKeys === undefined ? plan : { ...plan, soundKeys }), null, 2)}\n`,
      );
      return code;
    }
    const width = Math.max(8, ...plan.tasks.map((task) => task.id.length));
    const pm = plan.packageManager;
    const lines = [
      `lockguard plan: ${plan.runner}, ${plan.tasks.length} ${plan.tasks.length === 1 ? 'task' : 'tasks'}, lockfile ${plan.lockfile}, ${pm.name} ${pm.version ?? '(version unknown)'}${pm.path === null ? '' : ` (${pm.path})`}`,
    ];
    for (const note of plan.notes) lines.push(`  note: ${note}`);
    const writers = plan.tasks.filter((task) => task.writer);
    lines.push(writers.length === 0 ? 'writers: none' : 'writers:');
    for (const task of writers)
      lines.push(`  ${task.id.padEnd(width)}  ${task.writeReason ?? 'may install'}${task.cached ? ' (cached)' : ''}`);
    const unstable = plan.tasks.filter((task) => task.stability === 'unstable');
    if (unstable.length > 0) lines.push('unstable:');
    for (const task of unstable)
      lines.push(
        `  ${task.id.padEnd(width)}  ${task.reasons[0] ?? ''}${task.reasons.length > 1 ? ` (+${task.reasons.length - 1} more)` : ''}`,
      );
    if (soundKeys !== undefined) {
      const cached = soundKeys.folded.length + soundKeys.leftOut.length;
      lines.push(
        soundKeys.leftOut.length === 0
          ? `sound keys: all ${cached} cached tasks fold their project's ${SLICE_FILE} (their keys change when its lockfile slice does)`
          : `sound keys: ${soundKeys.leftOut.length} of ${cached} cached tasks leave their project's ${SLICE_FILE} out: ${soundKeys.leftOut.join(', ')} (fix: ${soundKeysFix(soundKeysMode(workspace.root))})`,
      );
      if (soundKeys.wouldChange !== undefined && soundKeys.wouldChange.length > 0)
        lines.push(
          `keys would change (their project's slice differs from its ${SLICE_FILE}): ${soundKeys.wouldChange.join(', ')}`,
        );
    }
    io.stdout.write(`${redactText(lines.join('\n'))}\n`);
    const verdict = `verdict: ${plan.verdict}`;
    io.stdout.write(
      `${plan.unstable.length === 0 ? paint(io, io.stdout, 'green', verdict) : paint(io, io.stdout, 'yellow', verdict)}\n`,
    );
    return code;
  },
};
