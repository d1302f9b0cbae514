// "Did you mean": the closest known word to one a user mistyped, for unknown commands and flags.
//
// Owns: the distance (optimal string alignment: insertions, deletions, substitutions and one swap of two
// neighbours each cost 1, so `stauts` is 1 from `status`) and the rule for offering a word.
// Invariants: pure; offers a word only within distance 2 and within a third of the typed word's length
// (rounded up), and only when one candidate is closest (a tie offers nothing rather than a guess).

/** The optimal-string-alignment distance between `a` and `b`. */
export function distance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** The one candidate closest to `typed`, when it is close enough to be what the user meant. */
export function closest(typed: string, candidates: readonly string[]): string | undefined {
  const limit = Math.min(2, Math.ceil(typed.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  let tie = false;
  for (const candidate of candidates) {
    const d = distance(typed, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
      tie = false;
    } else if (d === bestDistance) tie = true;
  }
  return best !== undefined && !tie ? best : undefined;
}
