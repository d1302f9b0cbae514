// Which projects a move touched and which cache entries are theirs (integrations/runners/affected.ts): every
// rule that falls back to withholding every save after the move, the per-project scope, turbo's entries by
// summary graph and by manifest, and the status line's clause. End to end: test/e2e/withhold-precise.test.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FileDigest } from '../../../lib/core/digest.js';
import type { SliceDiff } from '../../../lib/core/slices/diff.js';
import {
  entryScope,
  scopeClause,
  withholdScope,
  type WithholdScope,
} from '../../../lib/integrations/runners/affected.js';
import type { RunnerCache, SummaryReading, TaskNode } from '../../../lib/integrations/runners/types.js';
import type { SliceMove } from '../../../lib/ledger/slice-report.js';
import type { MovedFile } from '../../../lib/ledger/verdict.js';
import { tempWorkspace } from '../../helpers/workspace.js';

const WAS = 'a'.repeat(64) as FileDigest;
const NOW = 'b'.repeat(64) as FileDigest;
const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";
const PROJECTS = [
  { importer: '.', name: 'root' },
  { importer: 'packages/a', name: 'a' },
  { importer: 'packages/a/sub', name: 'sub' },
  { importer: 'packages/b', name: 'b' },
  { importer: 'packages/c', name: 'c' },
];
const ISOLATED = '{"nodeLinker":"isolated","publicHoistPattern":[],"hoistPattern":["*"]}';

function diff(changed: readonly string[], hoisted: readonly string[] = []): SliceDiff {
  return {
    lockfile: 'pnpm-lock.yaml',
    changed: changed.map((importer) => ({
      importer,
      name: undefined,
      entryChanged: true,
      packages: [],
      contentChanged: [],
    })),
    added: [],
    removed: [],
    hoisted,
    unchanged: 5 - changed.length - hoisted.length,
  };
}

function sliceMove(changed: readonly string[], now: FileDigest = NOW, hoisted: readonly string[] = []): SliceMove {
  return {
    lockfile: 'pnpm-lock.yaml',
    was: WAS,
    now,
    diff: diff(changed, hoisted),
    gap: undefined,
    projects: PROJECTS,
    text: '',
  };
}

const lockfileMoved: MovedFile = { path: 'pnpm-lock.yaml', kind: 'rewritten', was: WAS, now: NOW };
const markersMoved: MovedFile[] = [
  { path: 'node_modules/.pnpm/lock.yaml', kind: 'rewritten', was: WAS, now: NOW },
  { path: 'node_modules/.modules.yaml', kind: 'rewritten', was: WAS, now: NOW },
];

function installed(t: Parameters<typeof tempWorkspace>[0], modules = ISOLATED, marker = LOCK): string {
  return tempWorkspace(t, {
    'pnpm-lock.yaml': LOCK,
    node_modules: { '.modules.yaml': modules, '.pnpm': { 'lock.yaml': marker } },
  });
}

function reasonOf(scope: WithholdScope): string {
  assert.equal(scope.kind, 'all', JSON.stringify(scope));
  return scope.kind === 'all' ? scope.reason : '';
}

test('pnpm, isolated linker, only b moved: the scope is b (its dependents are in the diff through their slices)', (t) => {
  const root = installed(t);
  const scope = withholdScope({
    root,
    manager: 'pnpm',
    moved: [lockfileMoved, ...markersMoved],
    slices: [sliceMove(['packages/b'])],
  });
  assert.equal(scope.kind, 'projects');
  assert.deepEqual(scope.kind === 'projects' ? [...scope.affected] : [], ['packages/b']);
});

test("pnpm's private hoisting: a project whose slice did not move but whose reach through hoisting did is affected too", (t) => {
  const root = installed(t);
  const scope = withholdScope({
    root,
    manager: 'pnpm',
    moved: [lockfileMoved, ...markersMoved],
    slices: [sliceMove(['packages/b'], NOW, ['packages/a'])],
  });
  assert.equal(scope.kind, 'projects');
  assert.deepEqual(scope.kind === 'projects' ? [...scope.affected].sort() : [], ['packages/a', 'packages/b']);
});

test('every other case withholds every save after the move, with its reason', (t) => {
  const root = installed(t);
  const judge = (input: Partial<Parameters<typeof withholdScope>[0]>, at = root): string =>
    reasonOf(
      withholdScope({
        root: at,
        manager: 'pnpm',
        moved: [lockfileMoved],
        slices: [sliceMove(['packages/b'])],
        ...input,
      }),
    );
  assert.match(judge({ manager: 'npm' }), /^npm hoists packages into the root node_modules/);
  assert.match(judge({ manager: 'yarn' }), /^yarn's slices are not established as exact/);
  assert.match(judge({ manager: 'bun' }), /^bun's slices are not established as exact/);
  assert.equal(
    judge({ moved: [lockfileMoved, { path: 'pnpm-workspace.yaml', kind: 'rewritten', was: WAS, now: NOW }] }),
    "pnpm-workspace.yaml moved, which every project's install reads",
  );
  assert.equal(
    judge({ moved: [lockfileMoved, { path: 'patches/x.patch', kind: 'appeared', was: null, now: NOW }] }),
    "patches/x.patch moved, which every project's install reads",
  );
  assert.match(judge({ moved: markersMoved }), /^the installed tree moved without the lockfile/);
  assert.match(judge({ slices: [] }), /^pnpm-lock\.yaml moved and came back/);
  assert.match(
    judge({ slices: [sliceMove(['packages/b'], 'c'.repeat(64) as FileDigest)] }),
    /^pnpm-lock\.yaml moved more than once/,
  );
  assert.match(
    judge({ slices: [{ ...sliceMove([]), diff: undefined, gap: 'old-bytes-not-kept' }] }),
    /cannot be compared \(old-bytes-not-kept\)/,
  );
  assert.match(
    judge({ slices: [sliceMove(['.', 'packages/b'])] }),
    /^the root importer's slice moved, and the root's node_modules and bins reach every project/,
  );
  // Only the root's reach moved (design A: it installs a package and the pool moved): the line says so.
  assert.match(
    judge({ slices: [sliceMove(['packages/b'], NOW, ['.', 'packages/a'])] }),
    /^the hoisted pool the root's packages resolve from moved, and the root's node_modules and bins reach every project/,
  );
  assert.match(
    judge({}, installed(t, '{"nodeLinker":"hoisted","publicHoistPattern":[]}')),
    /^node-linker=hoisted puts packages where every project resolves them/,
  );
  assert.match(
    judge({}, installed(t, '{"nodeLinker":"isolated","publicHoistPattern":["*"]}')),
    /^public-hoist-pattern \(or shamefully-hoist\)/,
  );
  assert.match(
    judge({}, installed(t, '{"nodeLinker":"isolated","shamefullyHoist":true}')),
    /^public-hoist-pattern \(or shamefully-hoist\)/,
  );
  assert.match(judge({}, installed(t, 'not json')), /\.modules\.yaml cannot be read/);
  assert.match(
    judge({}, installed(t, ISOLATED, "lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    dependencies: {}\n")),
    /^the installed tree does not hold what pnpm-lock\.yaml says now/,
  );
});

const turbo = (dir: string, root: string): RunnerCache => ({ runner: 'turbo', root, dir, source: 'default' });
const summary = (graph?: Map<string, TaskNode>): SummaryReading => ({
  source: undefined,
  tasks: [],
  runningAcrossMove: [],
  ownKeys: undefined,
  note: undefined,
  ...(graph === undefined ? {} : { graph }),
});
const PRECISE: WithholdScope = { kind: 'projects', affected: new Set(['packages/b']), projects: PROJECTS };

test('nx and pnpm pipeline entries are not mapped to projects: every save after the move', (t) => {
  const root = installed(t);
  for (const runner of ['nx', 'pnpm-pipeline'] as const) {
    const scope = entryScope({ runner, root, dir: root, source: 'default' }, PRECISE, summary());
    assert.equal(scope.kind, 'all');
    assert.match(scope.kind === 'all' ? scope.reason : '', /cache entries are not mapped to projects here/);
  }
});

test("turbo with a run summary: a task is affected by its project's slice, by a task it depends on, and always at the root", (t) => {
  const root = installed(t);
  const graph = new Map<string, TaskNode>([
    ['k-a', { task: 'a#build', directory: 'packages/a', dependsOn: [] }],
    ['k-b', { task: 'b#build', directory: 'packages/b', dependsOn: ['a#build'] }],
    ['k-c', { task: 'c#build', directory: 'packages/c', dependsOn: [] }],
    ['k-c-test', { task: 'c#test', directory: 'packages/c', dependsOn: ['c#build', 'b#build'] }],
    ['k-root', { task: '//#lint', directory: '', dependsOn: [] }],
    ['k-lost', { task: 'a#lost', directory: 'packages/a', dependsOn: ['x#gone'] }],
  ]);
  const scope = entryScope(turbo(root, root), PRECISE, summary(graph));
  assert.equal(scope.kind, 'projects');
  if (scope.kind !== 'projects') return;
  assert.deepEqual(scope.spare('k-a'), { keep: true, task: 'a#build' });
  assert.deepEqual(scope.spare('k-c'), { keep: true, task: 'c#build' });
  assert.deepEqual(scope.spare('k-b'), { keep: false, task: 'b#build' });
  assert.deepEqual(scope.spare('k-c-test'), { keep: false, task: 'c#test' }, 'it depends on b#build');
  assert.deepEqual(scope.spare('k-root'), { keep: false, task: '//#lint' });
  assert.deepEqual(
    scope.spare('k-lost'),
    { keep: false, task: 'a#lost' },
    'a dependency the graph does not hold counts',
  );
  assert.deepEqual(scope.judged(), { kind: 'projects', unmapped: [] });
});

test("turbo without a summary: an entry's manifest names its project (the longest importer folder), when turbo.json orders tasks by packages", (t) => {
  const manifest = (files: readonly string[]): string =>
    JSON.stringify({ version: 1, files: Object.fromEntries(files.map((file) => [file, { size: 1 }])) });
  const root = tempWorkspace(t, {
    'pnpm-lock.yaml': LOCK,
    'turbo.json': JSON.stringify({ tasks: { build: { dependsOn: ['^build'] }, test: { dependsOn: ['build'] } } }),
    cache: {
      'k-c-manifest.json': manifest(['packages/c/.turbo/turbo-build.log', 'packages/c/dist/c.txt']),
      'k-sub-manifest.json': manifest(['packages/a/sub/.turbo/turbo-test.log', 'packages/a/sub/dist/x']),
      'k-b-manifest.json': manifest(['packages/b/.turbo/turbo-build.log']),
      'k-root-manifest.json': manifest(['.turbo/turbo-lint.log']),
      'k-mixed-manifest.json': manifest(['packages/a/.turbo/turbo-build.log', 'packages/c/dist/c.txt']),
    },
  });
  const scope = entryScope(turbo(`${root}/cache`, root), PRECISE, summary());
  if (scope.kind !== 'projects') throw new Error(JSON.stringify(scope));
  assert.deepEqual(scope.spare('k-c'), { keep: true, task: 'c#build' });
  assert.deepEqual(scope.spare('k-sub'), { keep: true, task: 'sub#test' });
  assert.deepEqual(scope.spare('k-b'), { keep: false, task: 'b#build' });
  assert.deepEqual(scope.spare('k-root'), { keep: false, task: 'root#lint' });
  assert.equal(scope.spare('k-mixed').keep, false);
  assert.equal(scope.spare('k-none').keep, false);
  assert.deepEqual(scope.judged(), {
    kind: 'projects',
    unmapped: [
      { reason: 'their files span more than one project', count: 1 },
      { reason: 'turbo wrote no -manifest.json for them', count: 1 },
    ],
  });
});

test("turbo without a summary, and a turbo.json (root or a package's) naming another package's task: nothing is kept, and why", (t) => {
  const manifest = JSON.stringify({ files: { 'packages/c/.turbo/turbo-build.log': {} } });
  for (const [place, file] of [
    ['root', { 'turbo.json': JSON.stringify({ tasks: { 'c#build': { dependsOn: ['b#build'] } } }) }],
    [
      'package',
      {
        'turbo.json': JSON.stringify({ tasks: { build: {} } }),
        packages: {
          c: { 'turbo.json': JSON.stringify({ extends: ['//'], tasks: { build: { dependsOn: ['b#build'] } } }) },
        },
      },
    ],
  ] as const) {
    const root = tempWorkspace(t, { 'pnpm-lock.yaml': LOCK, ...file, cache: { 'k-c-manifest.json': manifest } });
    const scope = entryScope(turbo(`${root}/cache`, root), PRECISE, summary());
    if (scope.kind !== 'projects') throw new Error(place);
    assert.deepEqual(scope.spare('k-c'), { keep: false, task: 'c#build' }, place);
    assert.match(
      scope.judged().kind === 'projects' ? JSON.stringify(scope.judged()) : '',
      /names other packages' tasks in dependsOn/,
      place,
    );
  }
});

test('the status line clause: per project, kept only, every save with the reason, and both', () => {
  const precise = { kind: 'projects', unmapped: [] } as const;
  assert.equal(
    scopeClause([
      {
        runner: 'turbo',
        withheld: [{ task: 'd#build' }, { task: 'b#build' }],
        spared: [{ task: 'c#build' }, { task: 'a#build' }],
        scope: precise,
      },
    ]),
    " (b#build, d#build, whose projects' slices moved); 2 kept (a#build, c#build: their projects' slices and reach did not move)",
  );
  assert.equal(
    scopeClause([{ runner: 'turbo', withheld: [{ task: 'b#build' }], spared: [], scope: precise }]),
    " (b#build, whose project's slice moved)",
  );
  assert.equal(
    scopeClause([{ runner: 'turbo', withheld: [], spared: [{ task: 'c#build' }], scope: precise }]),
    "; 1 kept (c#build: its project's slice and reach did not move)",
  );
  assert.equal(scopeClause([{ runner: 'turbo', withheld: [], spared: [], scope: precise }]), '');
  assert.equal(
    scopeClause([{ runner: 'turbo', withheld: [{}, {}], spared: [], scope: { kind: 'all', reason: 'why' } }]),
    ', every save after it, because why',
  );
  assert.equal(
    scopeClause([
      {
        runner: 'turbo',
        withheld: [{ task: 'b#build' }, { task: 'x#build' }],
        spared: [{ task: 'c#build' }],
        scope: { kind: 'projects', unmapped: [{ reason: 'no manifest', count: 1 }] },
      },
      { runner: 'nx', withheld: [{}], spared: [], scope: { kind: 'all', reason: 'not mapped' } },
    ]),
    " (1 whose project's slice moved; 1 not mapped to a project: no manifest); 1 kept (c#build: its project's slice and reach did not move); every nx save after it, because not mapped",
  );
});
