// Names read from a lockfile (importer paths, package names and versions) on their way to a terminal.
//
// Owns: `printable`, which escapes C0 and C1 control characters (and DEL) as \u{..}, so a lockfile cannot
// move the cursor, recolour the terminal or forge an output line (a "\n" inside an importer path would
// read as a line of its own in `lockguard key --projects`).
// Invariant: text without control characters comes back unchanged (the same string).

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this regex's purpose.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** `text` with every control character written as \u{hex}. */
export function printable(text: string): string {
  CONTROL.lastIndex = 0;
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROL, (char) => `\\u{${char.charCodeAt(0).toString(16)}}`);
}
