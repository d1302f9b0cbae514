import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addHookScripts, HOOK_SCRIPT, removeHookScripts } from '../../../lib/integrations/npm/scripts.js';

test('addHookScripts adds lockguard hook to prepare (npm records no hasInstallScript for it), keeping indentation and the final newline', () => {
  const edit = addHookScripts(
    '{\n    "name": "root",\n    "scripts": {\n        "build": "tsc"\n    }\n}\n',
    '/ws/package.json',
  );
  assert.deepEqual(edit.changed, ['prepare']);
  const hook = JSON.stringify(HOOK_SCRIPT);
  assert.equal(
    edit.text,
    `{\n    "name": "root",\n    "scripts": {\n        "build": "tsc",\n        "prepare": ${hook}\n    }\n}\n`,
  );
});

test('addHookScripts puts the hook in front of an existing prepare, moves it out of an earlier init\'s preinstall/postinstall (0.1\'s bare "lockguard hook" too), and leaves one that runs it alone', () => {
  const edit = addHookScripts(
    JSON.stringify({
      scripts: {
        preinstall: `${HOOK_SCRIPT} && node check.js`,
        postinstall: 'patch-package && lockguard hook',
        prepare: 'husky',
      },
    }),
    '/ws/package.json',
  );
  assert.deepEqual(edit.changed, ['preinstall', 'postinstall', 'prepare']);
  assert.deepEqual(JSON.parse(edit.text ?? ''), {
    scripts: { preinstall: 'node check.js', postinstall: 'patch-package', prepare: `${HOOK_SCRIPT} && husky` },
  });
  assert.deepEqual(addHookScripts(edit.text ?? '', '/ws/package.json'), { text: undefined, changed: [] });
});

test('removeHookScripts takes the hook back out: the manifest init edited is again what it was, byte for byte', () => {
  for (const before of [
    '{\n  "name": "root",\n  "private": true\n}\n',
    '{\n  "name": "root",\n  "scripts": {\n    "prepare": "husky",\n    "build": "tsc"\n  }\n}\n',
  ]) {
    const added = addHookScripts(before, '/ws/package.json').text ?? '';
    assert.notEqual(added, before);
    assert.equal(removeHookScripts(added, '/ws/package.json').text, before);
  }
  assert.deepEqual(removeHookScripts('{"name":"root"}', '/ws/package.json'), { text: undefined, changed: [] });
});

test('addHookScripts refuses a manifest that is not a JSON object, naming the path', () => {
  for (const text of ['{ broken', '[]', '{"scripts": "x"}']) {
    assert.throws(() => addHookScripts(text, '/ws/package.json'), {
      code: 'ERR_LOCKGUARD_USAGE',
      path: '/ws/package.json',
    });
  }
});
