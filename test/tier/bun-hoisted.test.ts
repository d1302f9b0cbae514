// The real-registry tier's bun, hoisted linker arm, turbo as the runner: tier.ts.

import { test } from 'node:test';
import { tierArm } from './tier.js';

test('bun, hoisted linker: from the tarball, init, doctor, five ordinary runs, the poisoning guarded, the way out', (t) =>
  tierArm(t, 'bun-hoisted'));
