import * as semver from "semver"

/**
 * Semantic-version order over the catalogue's versions (decision 0221), with `semver`: the strict
 * parser, the specification's precedence (a pre-release sorts below its release).
 */

/** Whether `version` is a strict semantic version `semver` can order. */
export const isOrderable = (version: string): boolean => semver.valid(version) !== null

/** Highest semantic version first. */
export const descending = <A extends { readonly version: string }>(versions: ReadonlyArray<A>): Array<A> =>
  [...versions].sort((a, b) => semver.compare(b.version, a.version))

/**
 * The latest of a template's versions: the highest published release; a pre-release only when no
 * release is published; never the newest row, never a deprecated version; `undefined` when nothing
 * is published.
 */
export const latestOf = <A extends { readonly version: string; readonly status: string }>(
  versions: ReadonlyArray<A>
): A | undefined => {
  const published = descending(versions.filter((version) => version.status === "published"))
  return published.find((version) => semver.prerelease(version.version) === null) ?? published[0]
}
