/** What a benchmark's `run()` returns: one table, and checks stated as plain sentences. */
export interface Figures {
  readonly title: string
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<string | number>>
  readonly checks: ReadonlyArray<string>
}

/**
 * Measurement window in seconds, `BENCH_DURATION` (default 5) after a warm-up of `BENCH_WARMUP`
 * (default 3), repeated `BENCH_ROUNDS` times (default `defaultRounds`, 1 unless a bench says more;
 * medians are reported) on a noisy machine.
 */
export const durations = (defaultRounds = 1): { readonly duration: number; readonly warmup: number; readonly rounds: number } => {
  const read = (name: string, fallback: number) => {
    const value = Number(process.env[name] ?? fallback)
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`)
    return value
  }
  const duration = read("BENCH_DURATION", 5)
  return { duration, warmup: read("BENCH_WARMUP", Math.min(3, duration)), rounds: Math.round(read("BENCH_ROUNDS", defaultRounds)) }
}

/** The median of some numbers. */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** Render figures as an aligned text table. */
export const render = (figures: Figures): string => {
  const cells = [figures.columns, ...figures.rows].map((row) => row.map(String))
  const widths = figures.columns.map((_, i) => Math.max(...cells.map((row) => row[i].length)))
  const line = (row: ReadonlyArray<string>) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ")
  return [
    figures.title,
    line(cells[0]),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...cells.slice(1).map(line),
    ...figures.checks.map((check) => `» ${check}`)
  ].join("\n")
}
