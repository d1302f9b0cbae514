// The two lockfiles the bad-lockfile tests (test/cli/main-bad-lockfiles.test.ts, main-odd-lockfiles.test.ts)
// start from and then break or bend: a pnpm v9 workspace (packages/a on left-pad, packages/b on a and is-number)
// and an npm v3 one (packages/b on is-number), SECRET planted in is-number's integrity in both, and the npm
// workspace's tree (`npmTree`; pnpm's is workspace.ts's `pnpmTree`).
//
// Invariants: each text is laid out as its package manager writes it, and the tests name positions in it (a
// line added or moved here moves them); SECRET stands only in the lockfiles the bad-lockfile tests plant it in
// (these two, and main-bad-lockfiles-yarn-bun's cases), so any six characters of it in a command's output are
// lockfile bytes printed.

import type { Tree } from './workspace.js';

export const SECRET = 'QZXWVKJHMNPLRTQZXWVKJHMN';

export const PNPM_LOCK = `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .: {}

  packages/a:
    dependencies:
      left-pad:
        specifier: ^1.3.0
        version: 1.3.0

  packages/b:
    dependencies:
      a:
        specifier: workspace:*
        version: link:../a
      is-number:
        specifier: ^7.0.0
        version: 7.0.0

packages:

  is-number@7.0.0:
    resolution: {integrity: sha512-${SECRET}==}
    engines: {node: '>=0.12.0'}

  left-pad@1.3.0:
    resolution: {integrity: sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQ9z1FFVGUHEcpRDhFnoo4tLZq0q5pTJs0ihuNu7qg5EaQ==}
    deprecated: use String.prototype.padStart()

snapshots:

  is-number@7.0.0: {}

  left-pad@1.3.0: {}
`;

export const NPM_LOCK = `{
  "name": "root",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": {
      "name": "root",
      "workspaces": ["packages/*"]
    },
    "node_modules/b": {
      "resolved": "packages/b",
      "link": true
    },
    "node_modules/is-number": {
      "version": "7.0.0",
      "resolved": "https://registry.npmjs.org/is-number/-/is-number-7.0.0.tgz",
      "integrity": "sha512-${SECRET}=="
    },
    "packages/b": {
      "version": "1.0.0",
      "dependencies": {
        "is-number": "^7.0.0"
      }
    }
  }
}
`;

export function npmTree(lockfile: string | Buffer): Tree {
  return {
    'package.json': '{"name":"root","private":true,"workspaces":["packages/*"]}\n',
    'package-lock.json': lockfile,
  };
}
