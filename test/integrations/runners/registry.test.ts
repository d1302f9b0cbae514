// The runner registry: one adapter per runner name the ledger records and per gate protocol, each with
// every member RunnerAdapter requires (a new runner missing one fails here, not in a user's run).

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { GATE_PROTOCOLS, protocolAdapter } from '../../../lib/integrations/remote-gate/index.js';
import { CONFIGS } from '../../../lib/integrations/slice-files/folded-by.js';
import {
  adapterFor,
  remoteCachePlan,
  RUNNER_NAMES,
  RUNNERS,
  runnerLabel,
  type RunnerAdapter,
} from '../../../lib/integrations/runners/index.js';
import { repoRoot } from '../../helpers/fixtures.js';
import { tempWorkspace } from '../../helpers/workspace.js';

/** The members every adapter must have, by kind (RunnerAdapter's required ones; `withhold` is optional). */
const FUNCTIONS = [
  'startedBy',
  'configuredAt',
  'resolveCache',
  'units',
  'unitPaths',
  'summary',
  'plan',
  'doctor',
] as const;
const REMOTE_FUNCTIONS = ['gate', 'detect', 'pointAt', 'writesOff'] as const;
/** What only a gateable remote has. */
const GATE_ONLY = new Set<string>(['gate', 'pointAt']);
/** The members of an adapter's optional `soundKeys` (its keys can fold the slice files). */
const SOUND_KEYS_FUNCTIONS = ['configured', 'edits', 'proof', 'folds'] as const;

/** What an adapter lacks, in words ([] when it is complete). */
function problems(adapter: RunnerAdapter): string[] {
  const found: string[] = [];
  const record = adapter as unknown as Record<string, unknown>;
  if (typeof record['name'] !== 'string' || record['name'] === '') found.push('name');
  if (typeof record['label'] !== 'string' || record['label'] === '') found.push('label');
  for (const member of FUNCTIONS) if (typeof record[member] !== 'function') found.push(member);
  if (record['withhold'] !== undefined && typeof record['withhold'] !== 'function') found.push('withhold');
  const projects = adapter.projects as { mapped?: unknown; reason?: unknown; entryFiles?: unknown } | undefined;
  if (projects?.mapped === true ? typeof projects.entryFiles !== 'function' : typeof projects?.reason !== 'string')
    found.push('projects');
  const remote = adapter.remote as unknown as Record<string, unknown> | undefined;
  // A remote no gate can stand in front of (wireit's) has no protocol, gate or pointAt: all three or none.
  const gated =
    remote?.['protocol'] !== undefined || remote?.['gate'] !== undefined || remote?.['pointAt'] !== undefined;
  if (gated && typeof remote?.['protocol'] !== 'string') found.push('remote.protocol');
  for (const member of REMOTE_FUNCTIONS)
    if ((gated || !GATE_ONLY.has(member)) && typeof remote?.[member] !== 'function') found.push(`remote.${member}`);
  const sound = adapter.soundKeys as unknown as Record<string, unknown> | undefined;
  if (sound !== undefined) {
    const files = sound['configFiles'];
    if (!Array.isArray(files) || files.length === 0) found.push('soundKeys.configFiles');
    for (const member of SOUND_KEYS_FUNCTIONS)
      if (typeof sound[member] !== 'function') found.push(`soundKeys.${member}`);
  }
  return found;
}

test('the registry has exactly one adapter per runner name the ledger records, in RUNNER_NAMES order', () => {
  const guarded = RUNNER_NAMES.filter((name) => name !== 'none');
  assert.deepEqual(
    RUNNERS.map((adapter) => adapter.name),
    guarded,
  );
  for (const name of guarded) assert.equal(adapterFor(name).name, name);
  assert.throws(() => adapterFor('none' as never), /no runner adapter/);
});

test('every adapter has every required member', () => {
  for (const adapter of RUNNERS) assert.deepEqual(problems(adapter), [], adapter.name);
});

test('the member check fails an adapter that lacks one (it can fail)', () => {
  const [first] = RUNNERS;
  assert.ok(first !== undefined);
  const { summary: _summary, ...noSummary } = first;
  assert.deepEqual(problems(noSummary as unknown as RunnerAdapter), ['summary']);
  const { writesOff: _writesOff, ...remote } = first.remote;
  assert.deepEqual(problems({ ...first, remote } as unknown as RunnerAdapter), ['remote.writesOff']);
  assert.deepEqual(problems({ ...first, projects: { mapped: true } } as unknown as RunnerAdapter), ['projects']);
  const { pointAt: _pointAt, ...noPoint } = first.remote;
  assert.deepEqual(problems({ ...first, remote: noPoint } as unknown as RunnerAdapter), ['remote.pointAt']);
  assert.ok(first.soundKeys !== undefined);
  const { folds: _folds, ...sound } = first.soundKeys;
  assert.deepEqual(problems({ ...first, soundKeys: sound } as unknown as RunnerAdapter), ['soundKeys.folds']);
});

test("the install hooks' list of the configs that fold the slice files is the adapters' own", () => {
  const adapters = RUNNERS.flatMap((adapter) =>
    (adapter.soundKeys?.configFiles ?? []).map((file) => `${adapter.name} ${file}`),
  );
  assert.deepEqual(
    CONFIGS.map(([runner, file]) => `${runner} ${file}`),
    adapters,
  );
  assert.deepEqual(
    RUNNERS.filter((adapter) => adapter.soundKeys !== undefined).map((adapter) => adapter.name),
    ['turbo', 'nx', 'wireit', 'moon', 'lage'],
  );
});

test('every gate protocol is spoken by exactly one adapter, and the gate gets that adapter', () => {
  for (const protocol of GATE_PROTOCOLS) {
    assert.equal(RUNNERS.filter((adapter) => adapter.remote.protocol === protocol).length, 1, protocol);
    assert.equal(protocolAdapter(protocol).protocol, protocol);
  }
  assert.deepEqual(RUNNERS.flatMap((adapter) => adapter.remote.protocol ?? []).sort(), [...GATE_PROTOCOLS].sort());
});

test("each runner's own remote switch says its label first (what the run's output lines are matched by)", () => {
  for (const adapter of RUNNERS) {
    const plan = remoteCachePlan(adapter.name, 'auto', true, { argv: [], env: {} });
    assert.ok(plan.note?.startsWith(`[lockguard] ${adapter.label} `), `${adapter.name}: ${plan.note}`);
    assert.equal(runnerLabel(adapter.name), adapter.label);
    assert.ok(Object.keys(plan.env).length > 0, `${adapter.name} changes the child's env`);
  }
});

test("a runner's sound-keys proof says nothing where that runner is not configured, with every runner on PATH", async (t) => {
  // A turbo workspace: doctor asks every runner's proof; moon's once ran `moon query projects` here and
  // warned (the tier caught it: moon is on PATH through this repository's node_modules/.bin).
  const root = tempWorkspace(t, {
    'package.json': '{"name":"root","private":true}\n',
    'turbo.json': '{"tasks":{"build":{"outputs":["dist/**"]}}}\n',
  });
  const env = { PATH: `${join(repoRoot(), 'node_modules', '.bin')}:${process.env['PATH'] ?? ''}`, HOME: root };
  for (const adapter of RUNNERS) {
    const side = adapter.soundKeys;
    if (side === undefined || side.configured(root)) continue;
    assert.equal(
      await side.proof(root, env, undefined),
      undefined,
      `${adapter.name}'s proof where it is not configured`,
    );
  }
});
