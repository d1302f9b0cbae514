// The real-registry tier's pnpm 12, isolated arm, turbo as the runner: tier.ts.

import { test } from 'node:test';
import { tierArm } from './tier.js';

test('pnpm 12, isolated: from the tarball, init, doctor, five ordinary runs, the poisoning guarded, the way out', (t) =>
  tierArm(t, 'pnpm12-isolated'));
