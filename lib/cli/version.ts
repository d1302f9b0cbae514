// lockguard's own version, read from its package.json wherever the code runs from (the tsc output under
// dist/lib/ or the single-file bundle dist/lockguard.cjs).

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export async function version(): Promise<string> {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'lockguard' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // not here: keep walking up
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}
