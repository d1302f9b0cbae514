// The real-registry tier's nx arm: pnpm 10 (isolated), nx 24.0.6 as the runner: tier.ts.

import { test } from 'node:test';
import { tierArm } from './tier.js';

test('pnpm 10 with nx 24: from the tarball, init, doctor, five ordinary runs, the poisoning guarded, the way out', (t) =>
  tierArm(t, 'pnpm10-nx'));
