// Every Azure Pipelines and Buildkite recipe in the repository (each file under examples/azure-pipelines and
// examples/buildkite, and the recipe each CI's row of lib/ci/README.md links) validates against that CI's
// published JSON schema, vendored under test/fixtures/ci-schemas/ (source, commit and licence in its README).
// Invariants: the schemas are read offline from the fixtures; a recipe is read as its CI reads it (Azure's
// YAML reader keeps every scalar a string, so the file is parsed with YAML's failsafe schema; Azure's
// `firstProperty` extension, "`task:` must be the step's first key", is enforced); each CI's validator is
// shown to reject a recipe with a wrong key, so a green run means the schema was really applied.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers/tools.js';

const SCHEMAS = join(REPO_ROOT, 'test', 'fixtures', 'ci-schemas');
const README = join(REPO_ROOT, 'lib', 'ci', 'README.md');

interface Ci {
  readonly name: string;
  readonly schema: string;
  readonly folder: string;
  readonly row: string;
  /** How the CI reads its YAML: Azure keeps every scalar a string (its schema types booleans as strings). */
  readonly read: (text: string) => unknown;
}

const CIS: readonly Ci[] = [
  {
    name: 'Azure Pipelines',
    schema: 'azure-pipelines.schema.json',
    folder: 'azure-pipelines',
    row: '| Azure Pipelines',
    read: (text) => parse(text, { schema: 'failsafe' }),
  },
  {
    name: 'Buildkite',
    schema: 'buildkite.schema.json',
    folder: 'buildkite',
    row: '| Buildkite',
    read: (text) => parse(text),
  },
];

/** The schema compiled with ajv; Azure's patterns are not valid under the `u` flag, and its extensions are
 * kept: `firstProperty` checked, `ignoreCase`/`aliases`/`doNotSuggest` (editor hints) ignored. The generated
 * code is not optimized: Azure's 1.6 MB schema compiles in about 1 s instead of 4.6 s, for two small files. */
function validator(ci: Ci): ValidateFunction {
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    unicodeRegExp: false,
    logger: false,
    code: { optimize: false },
  });
  ajv.addKeyword({
    keyword: 'firstProperty',
    schemaType: 'array',
    validate: (first: readonly string[], data: unknown) =>
      typeof data !== 'object' || data === null || Array.isArray(data) || first.includes(Object.keys(data)[0] ?? ''),
  });
  return ajv.compile(JSON.parse(readFileSync(join(SCHEMAS, ci.schema), 'utf8')));
}

/** Every recipe of a CI: the YAML files of its examples folder, and what its README row links. */
function recipes(ci: Ci): string[] {
  const folder = join(REPO_ROOT, 'examples', ci.folder);
  const files = readdirSync(folder)
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => join(folder, name));
  for (const line of readFileSync(README, 'utf8').split('\n')) {
    if (!line.startsWith(ci.row)) continue;
    for (const [, link] of line.matchAll(/\]\(([^)]+\.ya?ml)\)/g)) files.push(resolve(dirname(README), link ?? ''));
  }
  return [...new Set(files)].sort();
}

function problems(validate: ValidateFunction, doc: unknown): string[] {
  if (validate(doc)) return [];
  // A schema of anyOf/oneOf branches reports every branch; the deepest paths are the ones that explain.
  const errors = validate.errors ?? [];
  const depth = Math.max(...errors.map((error) => error.instancePath.split('/').length));
  const deepest = errors
    .filter((error) => error.instancePath.split('/').length === depth)
    .map((error) => `${error.instancePath} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
  return [...new Set(deepest)].slice(0, 12);
}

type Doc = { steps: Record<string, unknown>[] };

/** Wrong keys each CI must reject: a misspelt key in a recipe's step. */
const MUTANTS: Record<string, readonly ((doc: Doc) => void)[]> = {
  'Azure Pipelines': [
    (doc) => {
      const cache = doc.steps.find((step) => step['task'] === 'Cache@2') as { inputs: Record<string, unknown> };
      cache.inputs['keys'] = cache.inputs['key'];
      delete cache.inputs['key'];
    },
    (doc) => {
      const step = doc.steps.find((each) => each['bash'] !== undefined) as Record<string, unknown>;
      step['dispalyName'] = step['displayName'];
      delete step['displayName'];
    },
    (doc) => {
      const index = doc.steps.findIndex((step) => step['task'] === 'Cache@2');
      const { task, ...rest } = doc.steps[index] as Record<string, unknown>;
      doc.steps[index] = { ...rest, task }; // `task:` no longer first
    },
  ],
  Buildkite: [
    (doc) => {
      const step = doc.steps[0] as Record<string, unknown>;
      step['comand'] = step['command'];
      delete step['command'];
    },
    (doc) => {
      (doc.steps[0] as Record<string, unknown>)['plugin'] = (doc.steps[0] as Record<string, unknown>)['plugins'];
    },
  ],
};

for (const ci of CIS) {
  describe(`${ci.name} recipes against the published schema`, () => {
    const validate = validator(ci);
    const files = recipes(ci);

    test('the repository has at least one recipe for it, and the README row links one', () => {
      assert.ok(files.length > 0, `no recipe under examples/${ci.folder}`);
      assert.ok(
        readFileSync(README, 'utf8')
          .split('\n')
          .some((line) => line.startsWith(ci.row) && /\]\([^)]+\.ya?ml\)/.test(line)),
        `lib/ci/README.md's ${ci.name} row links its recipe`,
      );
    });

    for (const file of files) {
      test(`${relative(REPO_ROOT, file)} is valid`, () => {
        assert.deepEqual(problems(validate, ci.read(readFileSync(file, 'utf8'))), []);
      });
    }

    test('a recipe with a wrong key is rejected (the schema is applied)', () => {
      const source = readFileSync(files[0] ?? '', 'utf8');
      for (const [index, mutate] of (MUTANTS[ci.name] ?? []).entries()) {
        const doc = ci.read(source) as Doc;
        mutate(doc);
        assert.notDeepEqual(problems(validate, doc), [], `mutant ${index} of ${ci.name} was accepted`);
      }
      assert.ok((MUTANTS[ci.name] ?? []).length > 0);
    });
  });
}
