// The one owner of what lockguard's output may hold: values read from lockfiles and workspaces (importer
// paths, package names, versions, specifiers, URLs, error positions) on their way to a terminal, a CI log,
// a CI file or the ledger.
//
// Owns: `printable` (one value: every control character, line break, bidi control and line separator
// escaped as \uXXXX; cut at a length with an elision marker), `printableText` (a whole write of the CLI,
// lockguard's own line breaks kept: the same escapes, a line that GitHub would read as a workflow command
// (`::…` after leading blanks, `##[` anywhere) defused, a line cut at LINE_MAX), and `printableJson`
// (serialized JSON whose strings escape the code points JSON.stringify leaves raw: the value is unchanged).
// Invariants: text with nothing to escape comes back unchanged (the same string), so the cost on the hot path
// is one regular-expression test per write; nothing here prints; an escape never yields a character it
// escapes (printableText and printableJson are fixed points on their output; printable too under its cap).

// Escaped everywhere: C0 (but tab and line feed: lockguard's own layout), DEL, C1, the bidi controls (ALM,
// LRM, RLM, LRE..RLO, LRI..PDI) and the line and paragraph separators; in a value, tab and line feed too.
const ESCAPED =
  '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const UNPRINTABLE = new RegExp(`[\\t\\n${ESCAPED}]`, 'g');
const UNPRINTABLE_IN_TEXT = new RegExp(`[${ESCAPED}]`, 'g');
/** The ESC of lockguard's own colours (cli/io.ts paint), the only one a write may keep (with colour on). */
const OWN_COLOURS = ['\u001b[0m', '\u001b[2m', '\u001b[31m', '\u001b[32m', '\u001b[33m'];
/** A line GitHub Actions reads as a workflow command: `::name…` after leading blanks; `##[` anywhere (the v1 form). */
const COMMAND_LIKE = /^([ \t]*):(?=:)|##\[/gm;
/** Whether a write needs any work (the hot path's one test). */
const NEEDS_WORK = new RegExp(`[${ESCAPED}]|^[ \\t]*::|##\\[`, 'm');

/** A value's length cap: an importer path, a version, a name, a URL. */
export const VALUE_MAX = 200;
/** A message's length cap (a sentence that quotes values already capped). */
export const MESSAGE_MAX = 4000;
/** One printed line's cap: the net under every write (no legitimate line of lockguard's comes near). */
const LINE_MAX = 65_536;
/**
 * A recorded string's cap (the ledger, the journal, slice-files.json): above any path Linux accepts (PATH_MAX,
 * 4096 bytes), so every path a record holds reads back exactly; a value past it (a 2 MB version, a 100 KB
 * `node -e` script) is recorded cut, with the marker, and is only ever shown, never acted on.
 */
export const RECORD_VALUE_MAX = 16_384;

/** `\uXXXX`: readable in a line, and the same value inside a JSON string (every escaped code point is in the BMP). */
const escapeChar = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` cut to `max` UTF-16 units (never inside a surrogate pair), with a marker saying how much was left out. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\ud800-\udbff]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return `${text.slice(0, end)}…(${text.length - end} more characters)`;
}

/** One value, made printable: control characters, line breaks, bidi controls and U+2028/9 as \uXXXX; at most VALUE_MAX characters kept. */
export function printable(text: string): string {
  return printableUpTo(text, VALUE_MAX);
}

/** `printable` with another cap (MESSAGE_MAX for a sentence that quotes values). */
export function printableUpTo(text: string, max: number): string {
  const kept = cut(text, max);
  UNPRINTABLE.lastIndex = 0;
  // `##[` is a GitHub workflow command (the v1 form) wherever it stands in a line.
  if (!UNPRINTABLE.test(kept)) return kept.includes('##[') ? kept.replaceAll('##[', '#\\u0023[') : kept;
  return kept.replace(UNPRINTABLE, escapeChar).replaceAll('##[', '#\\u0023[');
}

/** A line defused if GitHub would read it as a workflow command: the first colon (or the second `#`) escaped. */
function defuseCommands(text: string): string {
  COMMAND_LIKE.lastIndex = 0;
  return text.replace(COMMAND_LIKE, (_match, blanks: string | undefined) =>
    blanks === undefined ? '#\\u0023[' : `${blanks}\\u003a`,
  );
}

/**
 * A whole write of the CLI made printable (cli/io.ts calls it for every write): lockguard's own line feeds and
 * tabs kept, and with `colour` the ESC of its own colour codes; every other control, bidi and separator code
 * point escaped; a line that would be a GitHub workflow command defused (lockguard's own annotations go
 * through `writeWorkflowCommand`, never here); each line cut at LINE_MAX.
 */
export function printableText(text: string, colour = false): string {
  if (!NEEDS_WORK.test(text) && text.length <= LINE_MAX) return text;
  UNPRINTABLE_IN_TEXT.lastIndex = 0;
  let out = text.replace(UNPRINTABLE_IN_TEXT, (char, at: number) =>
    colour && char === '\u001b' && OWN_COLOURS.some((code) => text.startsWith(code, at)) ? char : escapeChar(char),
  );
  out = defuseCommands(out);
  if (out.length > LINE_MAX)
    out =
      boundedJson(out) ??
      out
        .split('\n')
        .map((line) => cut(line, LINE_MAX))
        .join('\n');
  return out;
}

/** Each string of a value cut at MESSAGE_MAX (keys and numbers kept). */
function capStrings(value: unknown): unknown {
  if (typeof value === 'string') return cut(value, MESSAGE_MAX);
  if (Array.isArray(value)) return value.map(capStrings);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, capStrings(item)]));
}

/**
 * A long write that is one JSON document (`--json`), still one, each string cut at MESSAGE_MAX, so a line cut
 * never breaks it; undefined when the text is not JSON. Only a write past LINE_MAX comes here.
 */
function boundedJson(text: string): string | undefined {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return `${printableJson(JSON.stringify(capStrings(JSON.parse(text)), null, 2))}${text.endsWith('\n') ? '\n' : ''}`;
  } catch {
    return undefined;
  }
}

/** What JSON.stringify leaves raw inside a string. */
const JSON_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Serialized JSON made printable without changing its value: the C1 controls, DEL, bidi controls and
 * U+2028/9 that JSON.stringify leaves raw become \uXXXX escapes (they can only sit inside strings).
 */
export function printableJson(json: string): string {
  JSON_RAW.lastIndex = 0;
  const defused = json.includes('##[') ? json.replaceAll('##[', '#\\u0023[') : json;
  if (!JSON_RAW.test(defused)) return defused;
  return defused.replace(JSON_RAW, escapeChar);
}

/** A string cut at RECORD_VALUE_MAX (JSON.stringify's replacer: keys are never cut, nor anything else). */
const capRecorded = (_key: string, value: unknown): unknown =>
  typeof value === 'string' && value.length > RECORD_VALUE_MAX ? cut(value, RECORD_VALUE_MAX) : value;

/** A ledger record's JSON text (run/ writes every record through it): each string capped, JSON.stringify, then printableJson. */
export function recordJson(value: unknown, indent?: number): string {
  return printableJson(JSON.stringify(value, capRecorded, indent));
}
