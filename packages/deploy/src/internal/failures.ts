import { type UpstreamUnavailable } from "@core/kernel"
import { Effect } from "effect"
import { sourceHostUnavailable } from "../Errors.js"

/** An absolute path or `file://` URL in a message, after a start, a space, a quote, `(` or `=`. */
const PATH = /(^|[\s'"(=:])(?:file:\/\/)?\/[^\s'"():,]*/g

/**
 * A message fit for a log or an answer: every absolute path and `file://` URL (the data
 * directory, a scratch clone under the temporary directory) replaced by `<path>`, at most 500
 * characters. Git and the file system name the paths they touch; nothing of that leaves the server.
 */
export const withoutPaths = (text: string): string => {
  const replaced = text.replace(PATH, (_, before: string) => `${before}<path>`)
  return replaced.length > 500 ? `${replaced.slice(0, 500)}…` : replaced
}

/** The message of a thrown value, without paths. */
export const messageOf = (cause: unknown): string => withoutPaths(cause instanceof Error ? cause.message : String(cause))

/**
 * Run a source host's file-system and git work: a failure is logged (without paths) and answered
 * as 502 `UPSTREAM_UNAVAILABLE` "The <host> could not <what>", naming no path, command or errno.
 */
export const hostWork = <A>(host: string, what: string, work: () => Promise<A>): Effect.Effect<A, UpstreamUnavailable> =>
  Effect.tryPromise({ try: work, catch: (cause) => cause }).pipe(
    Effect.catchAll((cause) =>
      Effect.zipRight(
        Effect.logWarning(`The ${host} could not ${what}`, messageOf(cause)),
        Effect.fail(sourceHostUnavailable("source host", `The ${host} could not ${what}`))
      ))
  )
