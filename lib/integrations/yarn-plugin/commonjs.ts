// The entry esbuild bundles for dist/yarn-plugin.cjs. The build wraps the bundle as yarn's plugins are
// shipped (lib/build/bundle.mjs yarnPluginText): the file's top level sets only `name` and `factory`, and
// `factory` runs this bundle and calls `createPlugin(<the file yarn loaded>, <the writer's loader>).factory()`;
// the slice writer's bundle (dist/slice-writer.cjs's text) sits in the same file, run only by that loader.

export { createPlugin } from './plugin.js';
