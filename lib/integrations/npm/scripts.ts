// Adding lockguard's hook to a root package.json's `prepare` script (`lockguard init --npm-scripts`), and
// taking it back out (`lockguard uninstall`).
//
// Why `prepare` (measured with npm 11.19.1): npm runs the root's `prepare` after `npm install` and `npm ci`
// (npm_command says which), as it does `postinstall`, but a root preinstall/install/postinstall makes npm
// record `"hasInstallScript": true` on the root in package-lock.json, which moves every project's slice
// (every task rebuilds once more); `prepare` is not recorded. The root `preinstall` reported no earlier: npm
// runs it after writing node_modules and the lockfile. pnpm runs the root `prepare` after an install too.
// Owns: the text edit of the manifest: keeps its indentation and trailing newline, puts the hook script in
// front of an existing script (`<hook> && <yours>`), leaves a script that already runs it alone, moves the
// hook out of preinstall/postinstall where an earlier lockguard put it, and upgrades lockguard 0.1's bare
// `lockguard hook` (exit 127 where lockguard is not installed) to the no-op-safe form.
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
const HOOK_EVENTS = ['prepare'] as const;
/** Where earlier lockguard versions put the hook (recorded by npm as the root's hasInstallScript). */
const OLD_HOOK_EVENTS = ['preinstall', 'postinstall'] as const;

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

/** The manifest as an object with its scripts; a LockguardError naming the path when it is not one. */
function parseManifest(
  text: string,
  path: string,
): { record: Record<string, unknown>; scripts: Record<string, unknown> } {
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
  return { record, scripts: scripts as Record<string, unknown> };
}

/** A script without lockguard's hook: undefined when the hook was all of it. */
function withoutHook(script: string): string | undefined {
  if (script === HOOK_SCRIPT) return undefined;
  const rest = script.replace(`${HOOK_SCRIPT} && `, '').replace(` && ${HOOK_SCRIPT}`, '').replace(HOOK_SCRIPT, '');
  return rest.trim() === '' ? undefined : rest;
}

function serialize(text: string, record: Record<string, unknown>, scripts: Record<string, unknown>): string {
  const next: Record<string, unknown> = { ...record, scripts };
  if (Object.keys(scripts).length === 0) delete next['scripts'];
  const out = JSON.stringify(next, null, indentOf(text));
  return text.endsWith('\n') ? `${out}\n` : out;
}

/** Put lockguard's hook into the root manifest's prepare script (and out of preinstall/postinstall). */
export function addHookScripts(text: string, path: string): ScriptsEdit {
  const { record, scripts } = parseManifest(text, path);
  const next: Record<string, unknown> = { ...scripts };
  const changed: string[] = [];
  for (const event of OLD_HOOK_EVENTS) {
    const current = next[event];
    if (typeof current !== 'string' || !(current.includes(HOOK_SCRIPT) || OLD_HOOK.test(current))) continue;
    const rest = withoutHook(current.replace(OLD_HOOK, (_match, before: string) => `${before}${HOOK_SCRIPT}`));
    if (rest === undefined) delete next[event];
    else next[event] = rest;
    changed.push(event);
  }
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
  return { text: serialize(text, record, next), changed };
}

/** Take lockguard's hook out of every root script that runs it (a scripts object left empty goes too). */
export function removeHookScripts(text: string, path: string): ScriptsEdit {
  const { record, scripts } = parseManifest(text, path);
  const next: Record<string, unknown> = { ...scripts };
  const changed: string[] = [];
  for (const [event, current] of Object.entries(scripts)) {
    if (typeof current !== 'string' || !(current.includes(HOOK_SCRIPT) || OLD_HOOK.test(current))) continue;
    const rest = withoutHook(current.replace(OLD_HOOK, (_match, before: string) => `${before}${HOOK_SCRIPT}`));
    if (rest === undefined) delete next[event];
    else next[event] = rest;
    changed.push(event);
  }
  if (changed.length === 0) return { text: undefined, changed };
  return { text: serialize(text, record, next), changed };
}
