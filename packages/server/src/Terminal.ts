import type { Configuration, Logging } from "@core/kernel"
import { Context } from "effect"

/** Where the terminal's lines go: `process.stdout` or a stand-in with the same two members. */
export interface Output {
  readonly isTTY?: boolean
  readonly write: (text: string) => unknown
}

/**
 * What `core-server` shows a person at a terminal (docs/decisions/0581): one status line that it
 * rewrites in place ("Migrating database… 12/27"), the log lines as text above it. When stdout is
 * not a terminal (piped, a container, a test) the status line is silent and the log stays one
 * JSON object per line.
 */
export interface Screen {
  /** Whether stdout is a terminal (and `TERM` is not `dumb`). */
  readonly interactive: boolean
  /** Show `text` as the status line, replacing the previous one; nothing when not interactive. */
  readonly status: (text: string) => void
  /** Remove the status line. */
  readonly clear: () => void
  /** Write one whole line (a log line), keeping the status line below it. */
  readonly line: (text: string) => void
}

const CLEAR_LINE = "\r\x1b[2K"

/** A screen over `output` (stdout); interactive when it is a TTY and `TERM` is not `dumb`. */
export const make = (output: Output, env: Readonly<Record<string, string | undefined>>): Screen => {
  const interactive = output.isTTY === true && env.TERM !== "dumb"
  let shown: string | undefined
  const status = (text: string) => {
    if (!interactive) return
    shown = text
    output.write(`${CLEAR_LINE}${text}`)
  }
  const clear = () => {
    if (shown === undefined) return
    shown = undefined
    output.write(CLEAR_LINE)
  }
  const line = (text: string) => {
    if (shown === undefined) {
      output.write(`${text}\n`)
      return
    }
    output.write(`${CLEAR_LINE}${text}\n${shown}`)
  }
  return { interactive, status, clear, line }
}

let current: Screen | undefined

/** The one screen of this process, over `process.stdout`. */
export const forProcess = (): Screen => (current ??= make(process.stdout, process.env))

/**
 * How the log is written on `screen`: as text lines above the status line on a terminal, at
 * `CORE_LOG_LEVEL` when it is set and else warnings and errors only (the progress line and the
 * first screen say the rest); as JSON lines at `CORE_LOG_LEVEL` (default `info`) otherwise.
 */
export const logging = (
  config: Pick<Configuration, "logLevel" | "logLevelSet">,
  screen: Screen
): Logging.LoggingOptions =>
  screen.interactive
    ? { level: config.logLevelSet ? config.logLevel : "warn", format: "text", write: screen.line }
    : { level: config.logLevel }

/** The screen of this process as a service (`forProcess` unless a test provides another). */
export class Terminal extends Context.Reference<Terminal>()("@core/server/Terminal", {
  defaultValue: forProcess
}) {}
