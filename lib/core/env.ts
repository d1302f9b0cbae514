// The environment a function reads, as every layer passes it.
//
// Owns: `Env`, the one name for it (process.env, a test's environment, a child's): read-only, a variable
// absent or undefined alike.
// Invariants: a type only; nothing here reads process.env.

export type Env = Readonly<Record<string, string | undefined>>;
