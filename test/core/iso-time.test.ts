// isoTime against Date#toISOString: the same string for every time value, the same error for none.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoTime } from '../../lib/core/iso-time.js';
import { prng } from '../helpers/prng.js';

test('isoTime writes what toISOString writes (random times over ±300,000 years, the edges, now)', () => {
  const next = prng(7);
  const times = [
    0,
    -1,
    1,
    Date.now(),
    253402300799999,
    253402300800000,
    -62167219200000,
    -62167219200001,
    8.64e15,
    -8.64e15,
    1.5,
    -0.5,
  ];
  for (let i = 0; i < 20_000; i++) times.push(Math.floor((next() * 2 - 1) * 8.64e15), Math.floor(next() * 4e12));
  for (const ms of times) assert.equal(isoTime(ms), new Date(ms).toISOString(), String(ms));
  for (const bad of [Number.NaN, 8.64e15 + 1, Number.POSITIVE_INFINITY]) assert.throws(() => isoTime(bad), RangeError);
});
