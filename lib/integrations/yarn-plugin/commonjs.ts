// The entry esbuild bundles into dist/yarn-plugin.cjs: yarn requires a plugin file and reads `name` and
// `factory` from its exports.

import { plugin } from './plugin.js';

export const name = plugin.name;
export const factory = plugin.factory;
