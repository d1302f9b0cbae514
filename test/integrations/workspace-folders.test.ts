// The one workspace-folders reader (lib/integrations/workspace-folders.ts) the plan and wireit share.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  foldersMatching,
  manifestWorkspaceGlobs,
  pnpmWorkspaceGlobs,
} from '../../lib/integrations/workspace-folders.js';
import { tempWorkspace } from '../helpers/workspace.js';

const TREE = {
  'packages/a/package.json': '{}',
  'packages/b/package.json': '{}',
  'packages/skip/package.json': '{}',
  'packages/node_modules/x/package.json': '{}',
  'packages/.hidden/package.json': '{}',
  'apps/web/ui/package.json': '{}',
  'tools/package.json': '{}',
};

test('globs: pnpm-workspace.yaml packages (quoted, then other keys), package.json workspaces in both shapes', (t) => {
  const root = tempWorkspace(t, {
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n  - \'apps/**\'\n  - "!packages/skip"\ncatalog:\n  - no\n',
  });
  assert.deepEqual(pnpmWorkspaceGlobs(root), ['packages/*', 'apps/**', '!packages/skip']);
  assert.deepEqual(pnpmWorkspaceGlobs(tempWorkspace(t, {})), []);
  assert.deepEqual(manifestWorkspaceGlobs({ workspaces: ['a/*', 3] }), ['a/*']);
  assert.deepEqual(manifestWorkspaceGlobs({ workspaces: { packages: ['b/*'] } }), ['b/*']);
  assert.deepEqual(manifestWorkspaceGlobs({ workspaces: 'c' }), []);
});

test('folders: *, ** (the folder itself included), ! exclusions; never node_modules or a dot folder', (t) => {
  const root = tempWorkspace(t, TREE);
  assert.deepEqual(foldersMatching(root, ['packages/*', '!packages/skip']).sort(), ['packages/a', 'packages/b']);
  assert.deepEqual(foldersMatching(root, ['apps/**']).sort(), ['apps', 'apps/web', 'apps/web/ui']);
  assert.deepEqual(foldersMatching(root, ['tool?']), ['tools']);
  assert.deepEqual(foldersMatching(root, ['!packages/a']), [], 'only exclusions name nothing');
});
