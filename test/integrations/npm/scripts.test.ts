import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addHookScripts, HOOK_SCRIPT } from '../../../lib/integrations/npm/scripts.js';

test('addHookScripts adds lockguard hook to preinstall and postinstall, keeping indentation and the final newline', () => {
  const edit = addHookScripts(
    '{\n    "name": "root",\n    "scripts": {\n        "build": "tsc"\n    }\n}\n',
    '/ws/package.json',
  );
  assert.deepEqual(edit.changed, ['preinstall', 'postinstall']);
  const hook = JSON.stringify(HOOK_SCRIPT);
  assert.equal(
    edit.text,
    `{\n    "name": "root",\n    "scripts": {\n        "build": "tsc",\n        "preinstall": ${hook},\n        "postinstall": ${hook}\n    }\n}\n`,
  );
});

test('addHookScripts puts the hook in front of an existing script, upgrades 0.1\'s bare "lockguard hook", and leaves one that runs it alone', () => {
  const edit = addHookScripts(
    JSON.stringify({ scripts: { preinstall: 'node check.js', postinstall: 'patch-package && lockguard hook' } }),
    '/ws/package.json',
  );
  assert.deepEqual(edit.changed, ['preinstall', 'postinstall']);
  assert.deepEqual(JSON.parse(edit.text ?? ''), {
    scripts: { preinstall: `${HOOK_SCRIPT} && node check.js`, postinstall: `patch-package && ${HOOK_SCRIPT}` },
  });
  assert.deepEqual(addHookScripts(edit.text ?? '', '/ws/package.json'), { text: undefined, changed: [] });
});

test('addHookScripts refuses a manifest that is not a JSON object, naming the path', () => {
  for (const text of ['{ broken', '[]', '{"scripts": "x"}']) {
    assert.throws(() => addHookScripts(text, '/ws/package.json'), {
      code: 'ERR_LOCKGUARD_USAGE',
      path: '/ws/package.json',
    });
  }
});
