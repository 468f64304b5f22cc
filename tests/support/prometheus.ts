/**
 * `/metrics` read back with a Prometheus text parser of its own (`parse-prometheus-text-format`,
 * not prom-client, which writes it), so that what Core serves is checked as a scraper reads it.
 */
// @ts-expect-error: the parser ships no types; its output is typed below.
import parsePrometheusText from "parse-prometheus-text-format"

/** One sample of a counter or gauge, or one histogram series (buckets by `le`, count and sum). */
export interface Series {
  readonly labels: Record<string, string>
  readonly value?: string
  readonly buckets?: Record<string, string>
  readonly count?: string
  readonly sum?: string
}

/** A metric family as the parser gives it. */
export interface Family {
  readonly name: string
  readonly help: string
  readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED"
  readonly metrics: ReadonlyArray<Series>
}

/** The families of an exposition text; throws on text the parser cannot read. */
export const parse = (text: string): ReadonlyArray<Family> => (parsePrometheusText as (text: string) => ReadonlyArray<Family>)(text)

const sameLabels = (labels: Record<string, string>, wanted: Record<string, string>): boolean =>
  Object.entries(wanted).every(([name, value]) => labels[name] === value)

/** The series of `name` whose labels include `labels`. */
export const seriesOf = (families: ReadonlyArray<Family>, name: string, labels: Record<string, string> = {}): ReadonlyArray<Series> =>
  families.find((family) => family.name === name)?.metrics.filter((series) => sameLabels(series.labels ?? {}, labels)) ?? []

/**
 * The value of a counter or gauge series (summed over the series matching `labels`), or of a
 * histogram's `_count`; 0 when there is none.
 */
export const valueOf = (families: ReadonlyArray<Family>, name: string, labels: Record<string, string> = {}): number =>
  seriesOf(families, name, labels).reduce((total, series) => total + Number(series.value ?? series.count ?? 0), 0)

/** The type of `name`, `undefined` when it is not served. */
export const typeOf = (families: ReadonlyArray<Family>, name: string): Family["type"] | undefined =>
  families.find((family) => family.name === name)?.type
