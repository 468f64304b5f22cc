/** What a benchmark's `run()` returns: one table, and checks stated as plain sentences. */
export interface Figures {
  readonly title: string
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<string | number>>
  readonly checks: ReadonlyArray<string>
}

/** Measurement window in seconds: `BENCH_DURATION` (default 5), warm-up `BENCH_WARMUP` (default 3). */
export const durations = (): { readonly duration: number; readonly warmup: number } => {
  const read = (name: string, fallback: number) => {
    const value = Number(process.env[name] ?? fallback)
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of seconds`)
    return value
  }
  const duration = read("BENCH_DURATION", 5)
  return { duration, warmup: read("BENCH_WARMUP", Math.min(3, duration)) }
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
