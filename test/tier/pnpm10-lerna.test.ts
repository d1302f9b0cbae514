// The real-registry tier's Lerna arm: pnpm 10 (isolated), Lerna 9.0.7 as the runner (its own nx 22): tier.ts.

import { test } from 'node:test';
import { tierArm } from './tier.js';

test('pnpm 10 with Lerna 9: from the tarball, init, doctor, five ordinary runs, the poisoning guarded, the way out', (t) =>
  tierArm(t, 'pnpm10-lerna'));
