/**
 * The edit distance of two words: how many letters to insert, delete, change or swap (two
 * neighbours) to turn one into the other (optimal string alignment).
 *
 * @example editDistance('prot', 'port') // 1
 */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known word a mistyped one most likely meant, for a "did you mean …?": the nearest by
 * {@link editDistance} (case ignored), if it is near enough to be a typo (a third of the word's
 * letters at most, and at least one), or the one known word it is the start of; else undefined.
 *
 * @example closest('prot', ['port', 'host', 'seed']) // 'port'
 * @example closest('apiKey', ['apiKeys', 'adminKey']) // 'apiKeys'
 */
export function closest(word: string, known: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  const starting: string[] = [];
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
    if (lower.length >= 3 && candidate.toLowerCase().startsWith(lower)) starting.push(candidate);
  }
  if (best !== undefined && bestDistance <= Math.max(1, Math.floor(word.length / 3))) return best;
  return starting.length === 1 ? starting[0] : undefined;
}

/**
 * `; did you mean firstName?` when `word` is a likely typo of a known one ({@link closest}), else
 * ''. `quote` writes the suggestion as JSON text (`"READY"`), for messages that quote values.
 *
 * @example `${field} is not a known field${didYouMean(key, allowed)}` // 'fristName is not a known field; did you mean firstName?'
 */
export function didYouMean(word: unknown, known: Iterable<string>, { quote = false }: { quote?: boolean } = {}): string {
  // A word of one or two letters is one edit from too many others to guess.
  if (typeof word !== 'string' || word.length < 3) return '';
  const meant = closest(word, known);
  return meant === undefined || meant === word ? '' : `; did you mean ${quote ? JSON.stringify(meant) : meant}?`;
}
