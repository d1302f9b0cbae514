// The real-registry tier's yarn 4, PnP arm, turbo as the runner: tier.ts.

import { test } from 'node:test';
import { tierArm } from './tier.js';

test('yarn 4, PnP: from the tarball, init, doctor, five ordinary runs, the poisoning guarded, the way out', (t) =>
  tierArm(t, 'yarn4-pnp'));
