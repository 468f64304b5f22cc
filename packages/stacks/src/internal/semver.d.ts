/**
 * The few functions of `semver` (7.x, which ships no types) the catalogue uses; `@types/semver` is
 * not a dependency of this build (decision 0221).
 */
declare module "semver" {
  /** The normalized version, or `null` when `version` is not a strict semantic version. */
  export function valid(version: string): string | null
  /** `-1`, `0` or `1` as `a` is below, equal to or above `b`. */
  export function compare(a: string, b: string): -1 | 0 | 1
  /** The pre-release identifiers of a version, or `null` for a release. */
  export function prerelease(version: string): ReadonlyArray<string | number> | null
}
