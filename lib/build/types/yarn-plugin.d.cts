// The types of `lockguard/yarn-plugin` (dist/yarn-plugin.cjs, built by lib/build/bundle.mjs yarnPluginText):
// a yarn plugin as yarn loads one, its `name` and the `factory` yarn calls with its own require.
declare const plugin: {
  readonly name: 'lockguard';
  factory(yarnRequire: (id: string) => unknown): { hooks: Record<string, (...args: never[]) => void> };
};
export = plugin;
