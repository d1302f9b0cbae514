// The lines `lockguard run` prints for the events only a guarded run's own steps emit (guard/events.ts):
// what `--policy refuse` cannot refuse here, the remote switches and fallbacks, the move seen while the
// command runs, a command that did not start, a gate that could not decide.
//
// Owns: those lines, byte for byte as they always read (color included), and the status line's opening for
// a move (`moveStatusLine`): "which every key folds" only where no Rush is here; Rush (whose build cache keys
// each project on its own dependencies: integrations/runners/rush.ts) is named first, with why nothing of its
// cache is withheld, and on a run that moved nothing too (`rushLine`).
// Invariants: a command name from the user is redacted where it came from the user; every branch reads a
// typed field of the event, never words.

import { redactText } from '../core/redact.js';
import { foldsClause, listPaths, movedVerb, statusLine, type Move } from '../core/watch.js';
import { rushWords, type RushHere } from '../integrations/runners/rush.js';
import type { RefuseGap } from '../guard/events.js';
import { fallbackLines } from '../guard/record-words.js';
import type { RunEvent } from './guard-words.js';
import { paint, type Io } from './io.js';
import { detectionLine } from './verdict-words.js';

const REFUSE_GAP: Record<RefuseGap, string> = {
  'pnpm-no-pnpmfile':
    '[lockguard] --policy refuse without a pnpmfile: pnpm install and the install pnpm run/exec would do first are refused through the environment ' +
    "(outside turbo's strict env mode), but pnpm add/update/remove are not: one of those fails the run after the rewrite. " +
    'lockguard init --pnpmfile adds the plugin that refuses them (free on pnpm 10; pnpm 12 pays for any pnpmfile on every command).',
  'npm-no-hook':
    '[lockguard] --policy refuse in an npm workspace: npm cannot be refused at the source (it writes package-lock.json before any script runs); ' +
    'a rewrite fails the run after it. lockguard init --npm-scripts makes npm install fail at once instead of going on.',
  'yarn-classic':
    '[lockguard] --policy refuse with yarn 1: nothing stops yarn add or an install at the source; a rewrite fails the run after it.',
  'yarn-strict-env':
    "[lockguard] --policy refuse with yarn: installs and yarn add/remove/up are refused at the source through the environment, except inside turbo's strict env mode (turbo strips YARN_*): there a rewrite fails the run after it.",
  bun: '[lockguard] --policy refuse with bun: bun has no setting the environment can freeze; a rewrite fails the run after it (bunfig.toml install.frozenLockfile = true refuses at the source).',
};

/** The line(s) of one of a guarded run's own events, without their newlines. */
export function runEventLines(io: Io, event: RunEvent): string[] {
  const yellow = (text: string): string => paint(io, io.stderr, 'yellow', text);
  switch (event.type) {
    case 'refuse-gap':
      return [yellow(REFUSE_GAP[event.gap])];
    case 'remote-plan':
      return fallbackLines(event.switches, event.fallbacks);
    case 'slice-files':
      return event.lines.map((line) => yellow(event.warning ? line : `lockguard: ${line}`));
    case 'move-detected':
      return [yellow(detectionLine(event.move, event.policy, event.guarded))];
    case 'child-not-started':
      return event.nested
        ? [`lockguard: cannot run "${event.command}" (${event.reason}).`]
        : [
            `lockguard: cannot run "${redactText(event.command)}" (${event.reason === 'not-found' ? 'command not found' : event.reason}).`,
          ];
    case 'gate-undecided':
      return [
        yellow(
          `[lockguard] the ${event.runner} remote cache gate could not re-check the fingerprint table for ${event.requests} request(s) and refused them (lockguard status for details)`,
        ),
      ];
  }
}

/** The line of a run in a Rush repository (or that started Rush) that moved nothing: what Rush's cache needs. */
export function rushLine(rush: RushHere): string {
  return `[lockguard] ${rushWords(rush)}`;
}

/**
 * The status line of a run whose inputs moved: today's line (which every key folds) where Rush is not here;
 * otherwise what Rush's cache does first, then the guarded caches' keys by name.
 */
export function moveStatusLine(
  moves: readonly Pick<Move, 'path' | 'kind'>[],
  outcome: string,
  guarded: readonly string[],
  rush: RushHere | undefined,
  unresolved = 0,
): string {
  // A runner whose cache could not be resolved (the outcome says so first) is no key shown to fold the file.
  if (unresolved > 0 && guarded.length === 0 && rush === undefined)
    return `[lockguard] a task ${movedVerb(moves, 'active')} ${listPaths(moves.map((move) => move.path))} during the run: ${outcome}`;
  if (rush === undefined) return statusLine(moves, outcome);
  const changed = listPaths(moves.map((move) => move.path));
  const paths = moves.map((move) => move.path);
  const above = paths.some((path) => path.startsWith('../'));
  const folds = above
    ? `, ${foldsClause(paths)}`
    : guarded.length === 0
      ? ''
      : `, which the ${listPaths([...new Set(guarded)])} keys fold`;
  return `[lockguard] a task ${movedVerb(moves, 'active')} ${changed} during the run${folds}: ${rushWords(rush)}; ${outcome}`;
}
