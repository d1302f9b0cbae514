// Adding `lockguard hook` to a root package.json's preinstall/postinstall scripts (`lockguard init --npm-scripts`).
//
// Owns: the text edit of the manifest: keeps its indentation and trailing newline, puts the hook script in
// front of an existing script (`<hook> && <yours>`), leaves a script that already runs it alone, and upgrades
// lockguard 0.1's bare `lockguard hook` (exit 127 where lockguard is not installed) to the no-op-safe form.
// Invariants: pure (text in, text out); never touches a lockfile; a manifest that is not a JSON object is a
// LockguardError naming the path.

import { LockguardError } from '../../core/errors.js';

/**
 * What the root scripts run: lockguard's hook when lockguard is installed, nothing when it is not (exit 0), so
 * `npm ci --omit=dev` and a checkout without lockguard yet install as before. Node resolves from the root.
 */
export const HOOK_SCRIPT = `node -e "try{require.resolve('lockguard/npm-hook')}catch(e){process.exit(0)}require('lockguard/npm-hook')"`;
/** The form lockguard 0.1 wrote (fails with 127 where lockguard is not installed): replaced when found. */
const OLD_HOOK = /(^|[\s;&|(])lockguard hook(?=\s|$|[;&|)])/;
export const HOOK_EVENTS = ['preinstall', 'postinstall'] as const;

export interface ScriptsEdit {
  /** The new manifest text, or undefined when nothing had to change. */
  readonly text: string | undefined;
  /** The scripts that were added or prefixed. */
  readonly changed: readonly string[];
}

function indentOf(text: string): string | number {
  const match = /^[{[]\r?\n([ \t]+)\S/.exec(text);
  return match?.[1] ?? 2;
}

/** Put `lockguard hook` into the root manifest's preinstall and postinstall scripts. */
export function addHookScripts(text: string, path: string): ScriptsEdit {
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    throw new LockguardError('ERR_LOCKGUARD_USAGE', `The manifest "${path}" is not valid JSON.`, {
      path,
      cause: error,
      hint: 'Fix its syntax, then run lockguard init --npm-scripts again.',
    });
  }
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) {
    throw new LockguardError('ERR_LOCKGUARD_USAGE', `The manifest "${path}" is not a JSON object.`, {
      path,
      hint: 'Fix it, then run lockguard init --npm-scripts again.',
    });
  }
  const record = manifest as Record<string, unknown>;
  const scripts = record['scripts'] ?? {};
  if (scripts === null || typeof scripts !== 'object' || Array.isArray(scripts)) {
    throw new LockguardError('ERR_LOCKGUARD_USAGE', `The "scripts" field of "${path}" is not an object.`, {
      path,
      hint: 'Fix it, then run lockguard init --npm-scripts again.',
    });
  }
  const next: Record<string, unknown> = { ...(scripts as Record<string, unknown>) };
  const changed: string[] = [];
  for (const event of HOOK_EVENTS) {
    const current = next[event];
    if (typeof current === 'string' && current.includes(HOOK_SCRIPT)) continue;
    if (typeof current === 'string' && OLD_HOOK.test(current))
      next[event] = current.replace(OLD_HOOK, (_match, before: string) => `${before}${HOOK_SCRIPT}`);
    else
      next[event] = typeof current === 'string' && current.trim() !== '' ? `${HOOK_SCRIPT} && ${current}` : HOOK_SCRIPT;
    changed.push(event);
  }
  if (changed.length === 0) return { text: undefined, changed };
  const out = JSON.stringify({ ...record, scripts: next }, null, indentOf(text));
  return { text: text.endsWith('\n') ? `${out}\n` : out, changed };
}
