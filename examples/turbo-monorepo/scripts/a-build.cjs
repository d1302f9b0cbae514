// a's build step: like a build that runs `pnpm add`, it installs tiny-dep 6.0.0 into b, which rewrites
// pnpm-lock.yaml mid-run. It does so once (while `.demo-armed` exists at the workspace root), so a rebuild
// after going back does not install again. This file is not an input of any task's key.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const armed = path.join(__dirname, '..', '.demo-armed');
if (fs.existsSync(armed)) {
  fs.unlinkSync(armed);
  execFileSync('pnpm', ['--filter', 'b', 'add', 'tiny-dep@file:../../vendor/tiny-dep-6.0.0.tgz'], { stdio: 'inherit' });
}
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/a.txt', 'built\n');
