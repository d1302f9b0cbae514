// Where a value sits in bun.lock, and what bun 1.4.5 insists on there: the roles (the top level, the
// workspaces block, a workspace, a dependency map, the packages block, a package's tuple, the info object
// inside it), the frame jsonc.ts's pass keeps for an open container, and the checks of a package's
// elements (its `name@resolution`, its integrity) as measured with `bun install --frozen-lockfile`.
//
// Owns: `Role`, `roleOf`, `Frame`, `hasKey`, `SEMVER`, `identKind`, `validIntegrity`. Invariants: pure (no
// state, no reads of the file: the pass in jsonc.ts reads it and throws; these only answer).

/** Where a value sits in bun.lock's layout: what bun checks its type against. */
export const Role = {
  Other: 0,
  Root: 1,
  Workspaces: 2,
  Workspace: 3,
  DepMap: 4,
  Packages: 5,
  Tuple: 6,
  Info: 7,
} as const;
/** Where a value sits (Info: an object inside a package, its dependency maps checked as a workspace's). */
export type Role = (typeof Role)[keyof typeof Role];

const DEP_MAPS = new Set(['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']);

export interface Frame {
  readonly object: boolean;
  readonly role: Role;
  /** Keys seen so far (objects): an array while small, a Set past 8. */
  keys: string[] | Set<string>;
  /** Elements seen so far (arrays). */
  count: number;
  /** A package's last element, when it is a string: where it starts and ends (bun checks an integrity there). */
  last: number;
  lastEnd: number;
  /** A package resolved from a registry (its name at a version): bun wants its third element an object. */
  registry: boolean;
  thirdIsObject: boolean;
  /** A package whose last string is its integrity (a registry version or a tarball). */
  hashed: boolean;
  /** A workspace other than the root: bun wants its name. */
  named: boolean;
}

/** A version as bun's semver parser reads one. */
export const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
/** Digest sizes by algorithm, and the base64 length of each. */
const DIGEST: Record<string, number> = { sha1: 20, sha256: 32, sha384: 48, sha512: 64 };
/** Whether every character of `text` is in base64's alphabet (a loop: the regex was 6% of a bun.lock read). */
function base64Only(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A-Z, a-z, 0-9, '+', '/'
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47)) return false;
  }
  return true;
}

/**
 * Whether bun reads `value` (a package's integrity) as one, as measured with bun 1.4.5: a known algorithm,
 * then the base64 of at most the digest's size, read from the first (size in base64) characters with their
 * `=` padding dropped (a character outside base64 there, one character too many or too few is "malformed").
 */
export function validIntegrity(value: string): boolean {
  const dash = value.indexOf('-');
  const size = DIGEST[value.slice(0, dash)];
  if (dash === -1 || size === undefined) return false;
  const data = value.slice(dash + 1, dash + 1 + 4 * Math.ceil(size / 3)).replace(/=+$/, '');
  return base64Only(data) && data.length % 4 !== 1 && Math.floor((data.length * 3) / 4) <= size;
}

/** Resolutions bun reads besides a registry version: a protocol, or a tarball's path. */
const OTHER_RESOLUTION = /^(?:workspace:|link:|file:|git\+|git:|github:|https?:|root:)|\.(?:tgz|tar\.gz|tar)$/;

/**
 * How bun reads a package's first element (`name@resolution`): 'registry' (a version), 'other' (a protocol
 * or a tarball path), or undefined when bun refuses it ("Unexpected resolution", "Invalid semver version").
 */
export function identKind(ident: string): 'registry' | 'tarball' | 'other' | undefined {
  const at = ident.indexOf('@', 1);
  if (at <= 0 || at === ident.length - 1) return undefined;
  const resolution = ident.slice(at + 1);
  if (SEMVER.test(resolution)) return 'registry';
  if (!OTHER_RESOLUTION.test(resolution)) return undefined;
  return /^[a-z+]+:/.test(resolution) ? 'other' : 'tarball';
}

/** The role of a value under `frame` at `key` (objects; '' in arrays). */
export function roleOf(frame: Frame, key: string): Role {
  switch (frame.role) {
    case Role.Root:
      return key === 'workspaces' ? Role.Workspaces : key === 'packages' ? Role.Packages : Role.Other;
    case Role.Workspaces:
      return Role.Workspace;
    case Role.Packages:
      return Role.Tuple;
    case Role.Workspace:
    case Role.Info:
      return DEP_MAPS.has(key) ? Role.DepMap : Role.Other;
    case Role.Tuple:
      return Role.Info;
    default:
      return Role.Other;
  }
}

export const hasKey = (frame: Frame, key: string): boolean =>
  frame.keys instanceof Set ? frame.keys.has(key) : frame.keys.includes(key);
