// classifyKeys: each branch of the card's rule, and the graph errors.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyKeys, type PlanTask } from '../../lib/core/key-stability.js';

const task = (id: string, dependsOn: string[] = [], extra: Partial<PlanTask> = {}): PlanTask => ({
  id,
  dependsOn,
  mayWrite: false,
  cached: true,
  foldsFingerprint: true,
  ...extra,
});
const stability = (tasks: PlanTask[]) =>
  Object.fromEntries(classifyKeys({ tasks }).tasks.map((c) => [c.id, c.stability]));

test('no writer: every key is stable', () => {
  assert.deepEqual(stability([task('a'), task('b', ['a'], { foldsFingerprint: false, cached: false })]), {
    a: 'stable',
    b: 'stable',
  });
});

test('every reader after an uncached writer is unstable, folding or not; its prerequisites are stable', () => {
  const tasks = [
    task('d'),
    task('a', ['d'], { mayWrite: true, cached: false }),
    task('b', ['a']),
    task('e', ['b'], { foldsFingerprint: false }),
  ];
  assert.deepEqual(stability(tasks), { d: 'stable', a: 'stable', b: 'unstable', e: 'unstable' });
  const b = classifyKeys({ tasks }).tasks.find((c) => c.id === 'b');
  assert.deepEqual(b?.because, [{ writer: 'a', writerCached: false, ordering: 'runs-after' }]);
});

test('after a cached writer: a folding reader is stable, a non-folding reader unstable', () => {
  const tasks = [
    task('a', [], { mayWrite: true, cached: true }),
    task('b', ['a'], { foldsFingerprint: true }),
    task('c', ['a'], { foldsFingerprint: false }),
  ];
  assert.deepEqual(stability(tasks), { a: 'stable', b: 'stable', c: 'unstable' });
});

test('a task not ordered against a writer may run after it: unstable, marked may-run-after', () => {
  const tasks = [task('a', [], { mayWrite: true, cached: false }), task('c')];
  const c = classifyKeys({ tasks }).tasks.find((k) => k.id === 'c');
  assert.equal(c?.stability, 'unstable');
  assert.equal(c?.because[0]?.ordering, 'may-run-after');
});

test('a writer after another writer is unstable; the writers are listed', () => {
  const result = classifyKeys({
    tasks: [task('a', [], { mayWrite: true, cached: false }), task('b', ['a'], { mayWrite: true, cached: false })],
  });
  assert.deepEqual(result.writers, ['a', 'b']);
  assert.deepEqual(result.unstable, ['b']);
});

test('a cycle, an unknown dependency and a duplicate id are ERR_LOCKGUARD_PLAN', () => {
  assert.throws(() => classifyKeys({ tasks: [task('a', ['b']), task('b', ['a'])] }), { code: 'ERR_LOCKGUARD_PLAN' });
  assert.throws(() => classifyKeys({ tasks: [task('a', ['zzz'])] }), { code: 'ERR_LOCKGUARD_PLAN' });
  assert.throws(() => classifyKeys({ tasks: [task('a'), task('a')] }), { code: 'ERR_LOCKGUARD_PLAN' });
});

test('a graph that is no graph is ERR_LOCKGUARD_PLAN (it was a TypeError); one writer with 100,000 dependents is linear', () => {
  for (const graph of [undefined, {}, { tasks: [null] }, { tasks: [{ id: 'a' }] }])
    assert.throws(() => classifyKeys(graph as unknown as Parameters<typeof classifyKeys>[0]), {
      code: 'ERR_LOCKGUARD_PLAN',
    });
  const tasks = [
    { id: 'w', dependsOn: [], mayWrite: true, cached: false, foldsFingerprint: false },
    ...Array.from({ length: 100_000 }, (_, i) => ({
      id: `t${i}`,
      dependsOn: ['w'],
      mayWrite: false,
      cached: true,
      foldsFingerprint: false,
    })),
  ];
  // Copying the dependents list per edge made this quadratic (150,000 took 158 s); a spread of them overflowed.
  const classes = classifyKeys({ tasks });
  assert.equal(classes.unstable.length, 100_000);
  assert.equal(classes.tasks[1]?.because[0]?.ordering, 'runs-after');
});
