// The types of `require('lockguard/pnpmfile')` (dist/pnpmfile.cjs, lib/integrations/pnpmfile/commonjs.ts): the
// same names as the ES module's, seen from CommonJS (one object, not a namespace an ES module import would give).
declare const pnpmfile: typeof import('./lib/integrations/pnpmfile/index.js', { with: { 'resolution-mode': 'import' } });
export = pnpmfile;
