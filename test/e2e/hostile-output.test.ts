// No forged output line from a lockfile (issue 30): hostile text (a terminal escape, a bell, a line break and a
// forged `::warning::`, U+2028, U+202E, and a 2 MB string) planted in every field of every lockfile format that
// reaches output (lockfileVersion, importer paths, names, versions, specifiers, URLs), through the real CLI in
// GitHub Actions' environment: `snapshot` before, then `key --projects`, `key --project .`, `key
// --write-slices`, `key --check-slices`, `verify` and `status` on the hostile lockfile. stdout, stderr,
// $GITHUB_OUTPUT, $GITHUB_ENV, $GITHUB_STEP_SUMMARY, the dotenv file, the ledger's records and the slice files
// hold no raw escape, bell, C1, bidi or separator code point, no workflow command lockguard did not mean, and
// no unbounded line; no command crashes (exit 70).

import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, cliProcess } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { fixturesDir } from '../helpers/fixtures.js';
import { HOSTILE, ledgerTexts, outputFaults } from '../helpers/output-scan.js';
import { NPM_LOCK, PNPM_LOCK } from '../helpers/planted-lockfiles.js';
import { tempWorkspace, type Tree } from '../helpers/workspace.js';

const BIG = 'x'.repeat(2_000_000);
/** Inside a YAML double-quoted scalar (escapes only, so the file itself stays printable, as pnpm and yarn require). */
const yq = (text: string): string =>
  text.replace(/[^\x20-\x7e]|["\\]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
/** Inside a JSON string. */
const jq = (text: string): string => JSON.stringify(text).slice(1, -1);

interface Format {
  readonly name: string;
  readonly lockfile: string;
  readonly tree: Tree;
  readonly benign: string;
  /** The hostile lockfiles: the header (lockfileVersion, with the 2 MB string), then every field (a version with it). */
  readonly hostile: readonly string[];
}

const projects = (link: string): Tree => ({
  a: { 'package.json': JSON.stringify({ name: 'a', version: '1.0.0' }) },
  b: { 'package.json': JSON.stringify({ name: 'b', version: '1.0.0', dependencies: { a: link } }) },
  c: { 'package.json': JSON.stringify({ name: 'c', version: '1.0.0' }) },
});
const fixture = (name: string, file: string): string => readFileSync(join(fixturesDir(), name, file), 'utf8');
/** The field pairs, the first (a version) with the 2 MB string too. */
const withBig = (pairs: [string, string][], big: [string, string][]): [string, string][] => [
  big[0] ?? ['', ''],
  ...pairs.slice(1),
];
const replaceAll = (text: string, pairs: readonly [string, string][]): string =>
  pairs.reduce((out, [from, to]) => out.replaceAll(from, to), text);

function formats(): Format[] {
  const yarnTree: Tree = {
    'package.json': JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*'] }),
    packages: projects('workspace:*'),
  };
  const pnpmFields = (h: string): [string, string][] => [
    ['version: 7.0.0', `version: "7.0.0${yq(h)}"`],
    ['specifier: ^7.0.0', `specifier: "^7.0.0${yq(h)}"`],
    ['  packages/a:', `  "packages/a${yq(h)}":`],
  ];
  const npmFields = (h: string): [string, string][] => [
    ['"version": "7.0.0"', `"version": "7.0.0${jq(h)}"`],
    ['"is-number": "^7.0.0"', `"is-number": "^7.0.0${jq(h)}"`],
    ['https://registry.npmjs.org/', `https://registry.npmjs.org/${jq(h)}`],
    ['packages/b', `packages/b${jq(h)}`],
  ];
  const berryFields = (h: string): [string, string][] => [
    ['version: 7.0.0', `version: "7.0.0${yq(h)}"`],
    ['dep: "file:../../vendor/dep-7.0.0.tgz"', `dep: "file:../../vendor/dep-7.0.0.tgz${yq(h)}"`],
  ];
  const v1Fields = (h: string): [string, string][] => [
    ['version "7.0.0"', `version "7.0.0${jq(h)}"`],
    ['resolved "file:', `resolved "file:${jq(h)}`],
  ];
  const bunFields = (h: string): [string, string][] => [
    ['"version": "1.0.0"', `"version": "1.0.0${jq(h)}"`],
    ['"dep": "file:../../vendor/dep-7.0.0.tgz"', `"dep": "file:../../vendor/dep-7.0.0.tgz${jq(h)}"`],
    ['"packages/c"', `"packages/c${jq(h)}"`],
  ];
  const pnpm = PNPM_LOCK;
  const npm = NPM_LOCK;
  const berry = fixture('yarn-berry-workspace', 'yarn.lock');
  const v1 = fixture('yarn-v1-workspace', 'yarn.lock');
  const bun = fixture('bun-workspace', 'bun.lock');
  return [
    {
      name: 'pnpm',
      lockfile: 'pnpm-lock.yaml',
      tree: {
        'package.json': '{"name":"root","private":true}',
        'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
        packages: projects('workspace:*'),
      },
      benign: pnpm,
      hostile: [
        pnpm.replace("lockfileVersion: '9.0'", `lockfileVersion: "9.0${yq(HOSTILE)}${BIG}"`),
        replaceAll(pnpm, withBig(pnpmFields(HOSTILE), pnpmFields(HOSTILE + BIG))),
      ],
    },
    {
      name: 'npm',
      lockfile: 'package-lock.json',
      tree: {
        'package.json': JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*'] }),
        packages: projects('1.0.0'),
      },
      benign: npm,
      hostile: [
        npm.replace('"lockfileVersion": 3', `"lockfileVersion": "3${jq(HOSTILE)}${BIG}"`),
        replaceAll(npm, withBig(npmFields(HOSTILE), npmFields(HOSTILE + BIG))),
      ],
    },
    {
      name: 'yarn berry',
      lockfile: 'yarn.lock',
      tree: yarnTree,
      benign: berry,
      hostile: [
        berry.replace('  version: 10\n', `  version: "10${yq(HOSTILE)}${BIG}"\n`),
        replaceAll(berry, withBig(berryFields(HOSTILE), berryFields(HOSTILE + BIG))),
      ],
    },
    {
      name: 'yarn 1',
      lockfile: 'yarn.lock',
      tree: { ...yarnTree, packages: projects('1.0.0') },
      benign: v1,
      hostile: [replaceAll(v1, withBig(v1Fields(HOSTILE), v1Fields(HOSTILE + BIG)))],
    },
    {
      name: 'bun',
      lockfile: 'bun.lock',
      tree: yarnTree,
      benign: bun,
      hostile: [
        bun.replace('"lockfileVersion": 2', `"lockfileVersion": "2${jq(HOSTILE)}${BIG}"`),
        replaceAll(bun, withBig(bunFields(HOSTILE), bunFields(HOSTILE + BIG))),
      ],
    },
  ];
}

const COMMANDS: readonly (readonly string[])[] = [
  ['key', '--projects'],
  ['key', '--project', '.'],
  ['key', '--project', 'packages/b'],
  ['key', '--write-slices'],
  ['key', '--check-slices'],
  ['verify', '--github-output', '--dotenv', 'out.env'],
  ['status', '--json'],
];

for (const format of formats()) {
  test(`hostile text in every field of a ${format.name} lockfile reaches no output channel raw`, async (t) => {
    for (const [variant, hostile] of format.hostile.entries()) {
      const root = tempWorkspace(t, { ...format.tree, [format.lockfile]: format.benign });
      const files = { out: join(root, '..', `${root.split('/').at(-1)}-out`) };
      const github = {
        GITHUB_OUTPUT: `${files.out}.output`,
        GITHUB_ENV: `${files.out}.env`,
        GITHUB_STEP_SUMMARY: `${files.out}.summary`,
      };
      for (const path of Object.values(github)) writeFileSync(path, '');
      t.after(() => {
        for (const path of Object.values(github)) rmSync(path, { force: true });
      });
      const env = scrubbedEnv({ GITHUB_ACTIONS: 'true', CI: 'true', ...github });
      const snap = cliProcess(['snapshot', '--github-output', '--dotenv', 'out.env'], root, env);
      assert.equal(snap.code, 0, `${format.name}: ${snap.stderr}`);
      writeFileSync(join(root, format.lockfile), hostile);
      const faults: string[] = [];
      for (const argv of COMMANDS) {
        // verify through the real CLI (the bin, its streams, GitHub's files); the rest through main, in process.
        const result = argv[0] === 'verify' ? cliProcess(argv, root, env, 60_000) : await cli(argv, root, env);
        const label = `${format.name} #${variant} ${argv.join(' ')}`;
        assert.notEqual(result.code, 70, `${label}: ${result.stderr.slice(0, 2000)}`);
        assert.doesNotMatch(result.stderr, /internal error/, label);
        faults.push(...outputFaults(`${label} stdout`, result.stdout));
        faults.push(...outputFaults(`${label} stderr`, result.stderr, { annotations: argv[0] === 'verify' }));
      }
      for (const [name, path] of Object.entries(github)) faults.push(...outputFaults(name, readFileSync(path, 'utf8')));
      faults.push(...outputFaults('dotenv', readFileSync(join(root, 'out.env'), 'utf8')));
      for (const [path, text] of ledgerTexts(root))
        faults.push(...outputFaults(path.slice(root.length), text, { maxLine: 100_000 }));
      assert.deepEqual(faults, [], `${format.name} #${variant}`);
    }
  });
}
