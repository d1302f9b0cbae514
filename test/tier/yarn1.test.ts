// The real-registry tier's yarn 1 arm, turbo as the runner: tier.ts.

import { test } from 'node:test';
import { tierArm } from './tier.js';

test('yarn 1: from the tarball, init, doctor, five ordinary runs, the poisoning guarded, the way out', (t) =>
  tierArm(t, 'yarn1'));
