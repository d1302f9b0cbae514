// The real-registry tier's pnpm 10 arm (isolated linker, pnpm's default), turbo as the runner: tier.ts.

import { test } from 'node:test';
import { tierArm } from './tier.js';

test('pnpm 10, isolated (its default): from the tarball, init, doctor, five ordinary runs, the poisoning guarded, the way out', (t) =>
  tierArm(t, 'pnpm10-isolated'));
