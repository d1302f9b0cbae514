import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutLockguardPlugin } from '../../../lib/integrations/yarn-plugin/registration.js';

// As yarn 4.18.1's `yarn plugin import <lockguard>/dist/yarn-plugin.cjs` writes it (measured).
const OURS =
  '  - checksum: 43eb96\n    path: .yarn/plugins/lockguard.cjs\n    spec: ./node_modules/lockguard/dist/yarn-plugin.cjs\n';
const OTHER = '  - path: .yarn/plugins/@yarnpkg/plugin-typescript.cjs\n    spec: "@yarnpkg/plugin-typescript"\n';

test("withoutLockguardPlugin takes lockguard's entry back out, and plugins: with it when it was alone", () => {
  assert.equal(withoutLockguardPlugin(`enableTelemetry: false\n\nplugins:\n${OURS}`), 'enableTelemetry: false\n');
  assert.equal(
    withoutLockguardPlugin(`nodeLinker: pnp\n\nplugins:\n${OTHER}${OURS}\nyarnPath: .yarn/releases/yarn.cjs\n`),
    `nodeLinker: pnp\n\nplugins:\n${OTHER}\nyarnPath: .yarn/releases/yarn.cjs\n`,
  );
  assert.equal(withoutLockguardPlugin(`plugins:\n${OTHER}`), undefined);
  assert.equal(withoutLockguardPlugin('nodeLinker: pnp\n'), undefined);
});
