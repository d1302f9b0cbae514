// Counted words in the lines lockguard writes.
//
// Owns: `plural` ("1 run", "2 runs", "3 cache entries"), the one helper every layer's messages use.
// Invariants: the count is written as given (no grouping, no words for numbers); `many` defaults to `one`
// plus "s".

/** `count` and the word for that many: `one` for exactly 1, else `many` (`one` plus "s" unless given). */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
