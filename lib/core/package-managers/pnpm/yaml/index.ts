// The YAML a pnpm lockfile is written in, read as pnpm reads it: what the rest of slices/ uses of the reader.
//
// Owns: nothing of its own; the folder's surface. text.ts decodes the bytes and splits the documents,
// reader.ts reads a document line by line (`readYamlLines`) on blocks.ts (the open blocks, the reported
// line), line.ts (one line's key and value), flow.ts (flow collections) and scalar.ts (quoted and plain
// scalars). lockfile-index.ts reads a lockfile's sections out of these lines.
// Invariants: modules outside this folder import it through this file only; the modules in it import each
// other directly (never this file), so the folder has no cycle.

export { flowEnd } from './flow.js';
export { readYamlLines, type YamlLine } from './reader.js';
export { plainTypeAt, unquote } from './scalar.js';
export { decodePnpmLockfile, NON_PRINTABLE, yamlDocuments } from './text.js';
