/**
 * The one way a test waits for something another process, thread or timer does: read
 * again every `interval` ms until the value holds or the deadline passes, then fail with a message
 * that says what was awaited and what was last seen — never a bare sleep, never an unbounded loop.
 * Time-based logic itself uses `TestClock` or an injected clock instead.
 */

/** How long and how often to read, and what the failure says. */
export interface PollOptions {
  /** What was awaited, for the failure ("a mail to ada@example.com"); a function is called then (a process's output). */
  readonly message: string | (() => string)
  /** The deadline, in ms from the first read (default 10 s: a loaded 2-core machine). */
  readonly timeout?: number
  /** The pause between reads, in ms (default 50). */
  readonly interval?: number
  /** Why waiting longer is pointless (the awaited process has exited), checked after each read; stops at once. */
  readonly abandon?: () => string | undefined
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const shown = (value: unknown): string => {
  if (value instanceof Error) return `${value.name}: ${value.message}`
  try {
    const text = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? String(value)
    return text.length > 500 ? `${text.slice(0, 500)}…` : text
  } catch {
    return String(value)
  }
}

/**
 * Read until `holds(value)`; the value that held. A read that throws is read again (a server still
 * starting refuses connections); at the deadline it throws `Timed out after N ms waiting for
 * <message>; last read: <value or error>`, and at once when `abandon` gives a reason.
 */
export const eventually = async <A>(read: () => A | Promise<A>, holds: (value: A) => boolean, options: PollOptions): Promise<A> => {
  const timeout = options.timeout ?? 10_000
  const deadline = Date.now() + timeout
  let last: { readonly value: A } | { readonly error: unknown } | undefined
  for (;;) {
    try {
      const value = await read()
      if (holds(value)) return value
      last = { value }
    } catch (error) {
      last = { error }
    }
    const seen = () => (last === undefined ? "nothing" : "error" in last ? shown(last.error) : shown(last.value))
    const what = () => (typeof options.message === "string" ? options.message : options.message())
    const abandoned = options.abandon?.()
    if (abandoned !== undefined) throw new Error(`Stopped waiting for ${what()}: ${abandoned}; last read: ${seen()}`)
    if (Date.now() >= deadline) throw new Error(`Timed out after ${timeout} ms waiting for ${what()}; last read: ${seen()}`)
    await pause(Math.min(options.interval ?? 50, Math.max(0, deadline - Date.now())))
  }
}

/** `eventually` for a read that answers `undefined` until the thing exists; the thing. */
export const eventuallyDefined = <A>(read: () => A | undefined | Promise<A | undefined>, options: PollOptions): Promise<A> =>
  eventually(read, (value): value is A => value !== undefined, options) as Promise<A>

/**
 * Read until `holds` (or `ms` pass), every 100 ms; the last value read, held or not, so that the
 * caller's own `expect` shows the difference (the end-to-end files' `until`, tests/support/tenants.ts).
 */
export const until = <A>(read: () => Promise<A>, holds: (value: A) => boolean, ms = 5_000): Promise<A> =>
  eventually(read, holds, { message: "a value that holds", timeout: ms, interval: 100 }).catch(() => read())
