// lage's sound keys without running lage: the config's literal `inputs` arrays found and edited (every other
// byte kept, in the file's quote and layout), anything that is not a literal refused with the edit to make, the
// ignored mode refused (lage never hashes a gitignored file), the pipeline's keys read for `lage info`, and
// the install hooks' reading of the edited config (the real lage proves the keys: test/e2e/lage-sound-keys.test.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inputsArrays, pipelineKeys } from '../../../../lib/integrations/runners/lage/js-literals.js';
import { lageEdits, lageProof } from '../../../../lib/integrations/runners/lage/sound-keys.js';
import { runnersFoldingSlices } from '../../../../lib/integrations/slice-files/folded-by.js';
import { codeOf } from '../../../helpers/errors.js';
import { tempWorkspace } from '../../../helpers/workspace.js';

const CONFIG = `// lage's pipeline
module.exports = {
  npmClient: 'pnpm',
  pipeline: {
    build: ['^build'],
    test: { dependsOn: ['build'], inputs: ['src/**', "!src/**/*.md"] /* theirs */ },
    'b#lint': {
      inputs: [
        'src/**',
        'package.json',
      ],
    },
    docs: { inputs: ['**/*'], cache: false },
  },
  cacheOptions: { outputGlob: ['dist/**'], environmentGlob: ['inputs: [not, this]'] },
};
`;

test('the scanner: every inputs array outside strings and comments, its items and quote; the pipeline keys', () => {
  const arrays = inputsArrays(CONFIG);
  assert.deepEqual(
    arrays.map((array) => [array.line, array.items, array.quote, array.literal]),
    [
      [6, ['src/**', '!src/**/*.md'], "'", true],
      [8, ['src/**', 'package.json'], "'", true],
      [13, ['**/*'], "'", true],
    ],
  );
  assert.deepEqual(pipelineKeys(CONFIG), ['build', 'test', 'b#lint', 'docs']);
  assert.deepEqual(inputsArrays('module.exports = { pipeline: { build: { inputs: shared } } };')[0]?.literal, false);
  assert.deepEqual(inputsArrays("x = { inputs: [...base, 'a'] }")[0]?.literal, false);
  assert.deepEqual(pipelineKeys('module.exports = { pipeline: makePipeline() };'), []);
});

test('committed mode: the file appended to each literal inputs array that leaves it out, every other byte kept', (t) => {
  const root = tempWorkspace(t, { 'lage.config.js': CONFIG });
  const [edit, ...more] = lageEdits(root, 'committed');
  assert.equal(more.length, 0);
  assert.equal(edit?.file, 'lage.config.js');
  assert.equal(
    edit?.text,
    CONFIG.replace(`"!src/**/*.md"]`, `"!src/**/*.md", '.lockguard-slice']`).replace(
      "        'package.json',\n",
      "        'package.json',\n        '.lockguard-slice',\n",
    ),
  );
  assert.deepEqual(edit?.added, ["inputs (line 6): + '.lockguard-slice'", "inputs (line 8): + '.lockguard-slice'"]);
  // A second init finds nothing to add; the install hooks read the edited config as folding the files.
  const again = tempWorkspace(t, { 'lage.config.js': edit?.text ?? '' });
  assert.deepEqual(lageEdits(again, 'committed'), []);
  assert.deepEqual(runnersFoldingSlices(again), ['lage']);
  assert.deepEqual(runnersFoldingSlices(root), [], 'before the edit, nothing names the file');
  const defaults = tempWorkspace(t, { 'lage.config.js': "module.exports = { pipeline: { build: ['^build'] } };\n" });
  assert.deepEqual(lageEdits(defaults, 'committed'), [], "lage's default inputs (**/*) take a committed file in");
});

test('refused, nothing written: ignored mode (lage never hashes a gitignored file), an inputs that is not a literal, a config that is not JS', async (t) => {
  const root = tempWorkspace(t, { 'lage.config.js': CONFIG });
  assert.equal(await codeOf(() => lageEdits(root, 'ignored')), 'ERR_LOCKGUARD_BAD_CONFIG');
  assert.throws(
    () => lageEdits(root, 'ignored'),
    (error: { hint?: string }) => /--sound-keys=committed/.test(error.hint ?? ''),
  );
  const opaque = tempWorkspace(t, {
    'lage.config.js': "const shared = ['src/**'];\nmodule.exports = { pipeline: { build: { inputs: shared } } };\n",
  });
  assert.equal(await codeOf(() => lageEdits(opaque, 'committed')), 'ERR_LOCKGUARD_BAD_CONFIG');
  assert.throws(() => lageEdits(opaque, 'committed'), /line 2/);
  const json = tempWorkspace(t, { '.lagerc.json': '{"pipeline":{"build":{"inputs":["src/**"]}}}' });
  assert.equal(await codeOf(() => lageEdits(json, 'committed')), 'ERR_LOCKGUARD_BAD_CONFIG');
});

test('a workspace without lage: no edit in either mode and no proof (every runner is asked for every workspace)', async (t) => {
  const root = tempWorkspace(t, { 'package.json': '{"name":"root"}', 'turbo.json': '{}' });
  assert.deepEqual(lageEdits(root, 'ignored'), []);
  assert.deepEqual(lageEdits(root, 'committed'), []);
  assert.equal(await lageProof(root, {}, 'ignored'), undefined);
});
