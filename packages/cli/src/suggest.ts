/** Levenshtein distance between two short strings (command, subcommand and option names). */
const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]
}

/** The candidate closest to a mistyped `name` (at most two edits away, case ignored), if any. */
export const closest = (name: string, candidates: ReadonlyArray<string>): string | undefined =>
  candidates
    .map((candidate) => ({ candidate, distance: distance(name.toLowerCase(), candidate) }))
    .filter((entry) => entry.distance <= 2)
    .sort((a, b) => a.distance - b.distance)[0]?.candidate

/** `" Did you mean 'x'?"` when a candidate is close to `name`, else the empty string. */
export const didYouMean = (name: string, candidates: ReadonlyArray<string>): string => {
  const suggestion = closest(name, candidates)
  return suggestion === undefined ? "" : ` Did you mean '${suggestion}'?`
}
