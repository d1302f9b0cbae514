// Writes the version of is-even this build was made against: what a cache would store.
const { version } = require('is-even/package.json');
require('node:fs').mkdirSync('dist', { recursive: true });
require('node:fs').writeFileSync('dist/out.json', JSON.stringify({ isEven: version }) + '\n');
console.log(`built app against is-even ${version}`);
