/**
 * `/metrics` read back as a scraper reads it: a strict reader of the Prometheus text exposition
 * format 0.0.4 that throws on any line it does not understand (HELP and TYPE comments, samples with
 * escaped label values, `+Inf`/`-Inf`/`NaN`), written here rather than taken from npm because the
 * parser there (`parse-prometheus-text-format` 1.1.1, unchanged since 2020) folds every series of
 * a labelled histogram into one, which is exactly what Core's request histogram is
 * (decision 0723). Samples are grouped into families as Prometheus' own `expfmt` does: a
 * histogram's `_bucket`, `_sum` and `_count` by their labels without `le`.
 */

/** One series of a family: a counter's or gauge's value, or a histogram's buckets by `le`, count and sum. */
export interface Series {
  readonly labels: Record<string, string>
  readonly value?: string
  readonly buckets?: Record<string, string>
  readonly count?: string
  readonly sum?: string
}

/** A metric family. */
export interface Family {
  readonly name: string
  readonly help: string
  readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED"
  readonly metrics: ReadonlyArray<Series>
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*"
const COMMENT = new RegExp(`^# (HELP|TYPE) (${NAME}) ?(.*)$`)
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`)
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"])

const labelsOf = (pairs: string): Record<string, string> => {
  const labels: Record<string, string> = {}
  const pair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y
  let found: RegExpExecArray | null
  while (pair.lastIndex < pairs.length && (found = pair.exec(pairs)) !== null) {
    if (found[1] in labels) throw new Error(`Duplicate label ${found[1]} in ${pairs}`)
    labels[found[1]] = found[2].replace(/\\(\\|"|n)/g, (_, c: string) => (c === "n" ? "\n" : c))
  }
  if (pair.lastIndex !== pairs.length) throw new Error(`Unparsable labels: ${pairs}`)
  return labels
}

/** A sample value as Prometheus reads it (Go's `ParseFloat`: `NaN`, `+Inf`, `-Inf` in any case; prom-client writes `Nan`). */
const checkValue = (text: string): string => {
  if (/^[+-]?(inf|infinity|nan)$/i.test(text) || (text.trim() !== "" && !Number.isNaN(Number(text)))) return text
  throw new Error(`Unparsable value: ${text}`)
}

/** The families of an exposition text; throws on text the format does not allow. */
export const parse = (text: string): ReadonlyArray<Family> => {
  if (text !== "" && !text.endsWith("\n")) throw new Error("The exposition text must end with a newline")
  type Building = { labels: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string; sum?: string }
  const families = new Map<string, { name: string; help: string; type: Family["type"]; series: Map<string, Building> }>()
  const family = (name: string) => {
    let known = families.get(name)
    if (known === undefined) families.set(name, known = { name, help: "", type: "UNTYPED", series: new Map() })
    return known
  }
  const owner = (sample: string): { name: string; part: "value" | "bucket" | "sum" | "count" } => {
    for (const suffix of ["_bucket", "_sum", "_count"] as const) {
      const base = sample.slice(0, -suffix.length)
      if (sample.endsWith(suffix) && (families.get(base)?.type === "HISTOGRAM" || families.get(base)?.type === "SUMMARY")) {
        return { name: base, part: suffix.slice(1) as "bucket" | "sum" | "count" }
      }
    }
    return { name: sample, part: "value" }
  }
  for (const line of text.split("\n")) {
    if (line === "") continue
    const comment = COMMENT.exec(line)
    if (comment !== null) {
      const [, kind, name, rest] = comment
      if (kind === "HELP") family(name).help = rest.replace(/\\(\\|n)/g, (_, c: string) => (c === "n" ? "\n" : "\\"))
      else if (TYPES.has(rest)) family(name).type = rest.toUpperCase() as Family["type"]
      else throw new Error(`Unknown type: ${line}`)
      continue
    }
    if (line.startsWith("#")) continue
    const match = SAMPLE.exec(line)
    if (match === null) throw new Error(`Unparsable line: ${JSON.stringify(line)}`)
    const labels = labelsOf(match[2] ?? "")
    const value = checkValue(match[3])
    const { name, part } = owner(match[1])
    const { le, ...rest } = labels
    const grouped = part === "value" ? labels : rest
    const key = JSON.stringify(Object.entries(grouped).sort(([a], [b]) => (a < b ? -1 : 1)))
    const target = family(name)
    let series = target.series.get(key)
    if (series === undefined) target.series.set(key, series = { labels: grouped })
    if (part === "bucket") {
      if (le === undefined) throw new Error(`A bucket without le: ${line}`)
      series.buckets = { ...series.buckets, [le]: value }
    } else series[part] = value
  }
  return [...families.values()].map(({ name, help, type, series }) => ({ name, help, type, metrics: [...series.values()] }))
}

const sameLabels = (labels: Record<string, string>, wanted: Record<string, string>): boolean =>
  Object.entries(wanted).every(([name, value]) => labels[name] === value)

/** The series of `name` whose labels include `labels`. */
export const seriesOf = (families: ReadonlyArray<Family>, name: string, labels: Record<string, string> = {}): ReadonlyArray<Series> =>
  families.find((family) => family.name === name)?.metrics.filter((series) => sameLabels(series.labels, labels)) ?? []

/**
 * The value of a counter or gauge (summed over the series matching `labels`), or of a histogram's
 * `_count`; 0 when there is none.
 */
export const valueOf = (families: ReadonlyArray<Family>, name: string, labels: Record<string, string> = {}): number =>
  seriesOf(families, name, labels).reduce((total, series) => total + Number(series.value ?? series.count ?? 0), 0)

/** The type of `name`, `undefined` when it is not served. */
export const typeOf = (families: ReadonlyArray<Family>, name: string): Family["type"] | undefined =>
  families.find((family) => family.name === name)?.type
