// The CI-detection owner and GitHub's workflow-command escaping (integrations/ci/).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ciOf, isCi } from '../../../lib/integrations/ci/detect.js';
import { errorAnnotation } from '../../../lib/integrations/ci/github.js';
import { dotenvText } from '../../../lib/integrations/ci/files.js';
import { verdictSummary } from '../../../lib/integrations/ci/report.js';

test('ciOf: each provider by its own variable, a plain CI=true as other, nothing outside CI', () => {
  assert.deepEqual(ciOf({ GITHUB_ACTIONS: 'true', CI: 'true' }), { name: 'github' });
  assert.deepEqual(ciOf({ GITLAB_CI: 'true', CI: 'true' }), { name: 'gitlab' });
  assert.deepEqual(ciOf({ CIRCLECI: 'true', CI: 'true' }), { name: 'circleci' });
  assert.deepEqual(ciOf({ CI: '1' }), { name: 'other' });
  assert.equal(ciOf({}), undefined);
  assert.equal(ciOf({ CI: 'false', GITHUB_ACTIONS: 'false' }), undefined);
  for (const off of ['', '0', 'false', 'FALSE']) assert.equal(isCi({ CI: off }), false, off);
});

test('an annotation escapes %, CR, LF (and : , in properties) and redacts credentials', () => {
  const line = errorAnnotation('a,b:c%\nd.patch', 'x: y', 'moved\r\n::warning::forged https://user:pw@host/');
  assert.equal(
    line,
    '::error file=a%2Cb%3Ac%25%0Ad.patch,title=x%3A y::moved%0D%0A::warning::forged https://***@host/',
  );
  assert.equal(line.split('\n').length, 1);
});

test('dotenv values are one printable line each', () => {
  assert.equal(dotenvText({ A: 'x\nB=evil', C: 'ok' }), 'A=x\\u000aB=evil\nC=ok\n');
});

test('the job summary: a path cannot close its code span or the slice fence, and credentials are redacted', () => {
  const markdown = verdictSummary({
    save: false,
    key: 'k',
    moved: [{ path: 'patches/a`b|c.patch', kind: 'rewritten' }],
    line: '[lockguard] moved, see https://user:pw@example.test/x',
    slices: ['pnpm-lock.yaml moved: ```\n## injected', 'from https://user:pw@example.test/tarball.tgz'],
    withheld: ['turbo 3f2a (build)'],
  });
  assert.match(markdown, /\| `` patches\/a`b\\\|c\.patch `` \| rewritten \|/);
  assert.match(markdown, /````text\n/);
  assert.doesNotMatch(markdown, /user:pw/);
  assert.match(markdown, /https:\/\/\*\*\*@example\.test\/x/);
  assert.match(markdown, /- ` turbo 3f2a \(build\) `/);
  // The injected newline stays inside the fence, escaped, not a heading of its own.
  assert.doesNotMatch(markdown, /^## injected/m);
});
