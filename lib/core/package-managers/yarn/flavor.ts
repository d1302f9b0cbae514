// Which yarn wrote a yarn.lock, from its header: the table (patch entries exist only in berry) and the
// pre-run check, doctor and the refuse setup (what each flavour can be asked) all read it here.
// Invariant: reads at most the first YARN_HEADER_BYTES bytes.

/** How far into yarn.lock its flavour shows: berry's `__metadata:` block and v1's comment header both open the file. */
const YARN_HEADER_BYTES = 2048;

/** 'berry' when the lockfile has yarn 2+'s `__metadata` block, 'classic' for `# yarn lockfile v1`. */
export function yarnFlavor(lock: Buffer): 'berry' | 'classic' | undefined {
  const head = lock.subarray(0, YARN_HEADER_BYTES).toString('utf8');
  if (/^__metadata:/m.test(head)) return 'berry';
  if (head.includes('# yarn lockfile v1')) return 'classic';
  return undefined;
}
