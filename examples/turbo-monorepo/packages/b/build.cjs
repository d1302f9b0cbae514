// b's build: records the tiny-dep version it was built against.
const fs = require('node:fs');
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/out.json', `${JSON.stringify({ tinyDep: require('tiny-dep') })}\n`);
