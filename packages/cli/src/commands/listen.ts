import type { CoreEvent, EventType } from "@core/sdk"
import { createHmac, randomBytes } from "node:crypto"
import { expectPositionals, parseOptions } from "../args.js"
import { ExitCode, usageError } from "../errors.js"
import type { CommandContext } from "../spec.js"
import { spec } from "./listen.spec.js"
import { withSession, type Session } from "../session.js"
import type { Ui } from "../ui.js"
import { version } from "../version.js"
import { defined } from "./resources.js"
import { eventTypesOf } from "./webhooks.js"

/** How long the local receiver may take to answer one event, as Core's own deliveries wait. */
const FORWARD_TIMEOUT_MS = 15_000

/** What the local receiver answered one event: its status, or why there was none. */
interface Outcome {
  readonly status: number | null
  readonly durationMs: number
  readonly error: string | null
}

/** A fetch failure's reason, the socket's code when there is one (`ECONNREFUSED`). */
const reasonOf = (error: unknown): string => {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause
  if (typeof cause?.code === "string") return cause.code
  if (error instanceof Error && error.name === "TimeoutError") return `no answer within ${FORWARD_TIMEOUT_MS / 1000} s`
  return error instanceof Error ? error.message : String(error)
}

/** `--forward-to`: an absolute http(s) URL. */
const targetOf = (text: string | undefined): string => {
  if (text === undefined) throw usageError(`Missing --forward-to <url>, e.g. --forward-to http://localhost:3000/hooks. Usage: ${spec.usage}`)
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw usageError(`--forward-to must be an http(s) URL, got '${text}'. Usage: ${spec.usage}`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw usageError(`--forward-to must be an http(s) URL, got '${text}'. Usage: ${spec.usage}`)
  return url.href
}

/**
 * POSTs one event to the receiver as Core's deliveries are made (the same body, Standard Webhooks'
 * three headers, signed with the session's secret); never throws: a receiver that is down is an outcome.
 */
const forward = async (target: string, key: Buffer, event: CoreEvent, signal: AbortSignal): Promise<Outcome> => {
  const body = JSON.stringify(event)
  const timestamp = Math.floor(Date.now() / 1000)
  const signature = createHmac("sha256", key).update(`${event.id}.${timestamp}.${body}`).digest("base64")
  const started = performance.now()
  const took = () => Math.round(performance.now() - started)
  try {
    const response = await fetch(target, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": `core-cli/${version} (core listen)`,
        "webhook-id": event.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": `v1,${signature}`
      },
      body,
      redirect: "manual",
      signal: AbortSignal.any([signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)])
    })
    await response.body?.cancel()
    return { status: response.status, durationMs: took(), error: null }
  } catch (error) {
    return { status: null, durationMs: took(), error: reasonOf(error) }
  }
}

/** One forwarded event as a line: the time, the event, and what the receiver answered. */
const lineOf = (event: CoreEvent, outcome: Outcome): string =>
  `${new Date().toISOString().slice(11, 19)}  ${event.type}  ${event.id}  -> ${
    outcome.status === null ? `failed: ${outcome.error} (is the receiver running?)` : `${outcome.status} (${outcome.durationMs} ms)`
  }`

/**
 * Follows the organization's event stream and forwards every event, in order, to `target` until
 * Ctrl-C (SIGINT) or SIGTERM: one line per event (JSON lines with `--json`); a receiver that is
 * down or failing is reported and the next event forwarded all the same; a lost stream is
 * reopened where it was (`Last-Event-ID`), so none is skipped.
 */
const listen = async (ui: Ui, session: Session, target: string, types: ReadonlyArray<EventType> | undefined, platformId: string | undefined): Promise<number> => {
  const secret = `whsec_${randomBytes(32).toString("base64")}`
  const key = Buffer.from(secret.slice("whsec_".length), "base64")
  const stopping = new AbortController()
  const { signal } = stopping
  const stop = () => stopping.abort()
  process.once("SIGINT", stop)
  process.once("SIGTERM", stop)
  const what = types === undefined ? "every event" : types.join(", ")
  let forwarded = 0
  let opened = false
  const ready = () => {
    if (opened) return ui.error("Following the event stream again: no event missed.")
    opened = true
    if (ui.json) return ui.line(JSON.stringify({ ready: true, forwardTo: target, events: types ?? null, platformId: platformId ?? null, secret }))
    ui.line(`Ready! Forwarding ${what}${platformId === undefined ? "" : ` of platform ${platformId}`} to ${target}`)
    ui.line(`Your webhook signing secret is ${secret} (Ctrl-C to quit)`)
  }
  // A lost server is waited for (the SDK reopens the stream where it was, for as long as it takes);
  // a refusal (401, 403, an unknown event type) ends the session.
  const lost = (error: unknown, attempt: number) => {
    if (attempt === 1) ui.error(`core: lost the event stream (${error instanceof Error ? error.message : String(error)}); reconnecting…`)
  }
  try {
    const stream = session.client.events.stream(defined({ types, platformId, signal, onOpen: ready, onReconnect: lost, maxReconnects: Number.POSITIVE_INFINITY }))
    for await (const event of stream) {
      const outcome = await forward(target, key, event, signal)
      if (signal.aborted) break
      forwarded++
      if (ui.json) ui.line(JSON.stringify({ eventId: event.id, type: event.type, ...outcome }))
      else ui.line(lineOf(event, outcome))
    }
  } catch (error) {
    if (!signal.aborted) throw error
  } finally {
    process.off("SIGINT", stop)
    process.off("SIGTERM", stop)
  }
  ui.error(`Stopped: forwarded ${forwarded} event${forwarded === 1 ? "" : "s"}.`)
  return ExitCode.ok
}

/** `core listen --forward-to <url> [--events <type,…>] [--platform <id>]`: local development without a public URL (docs/webhooks.md). */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { values, positionals } = parseOptions(argv, { "forward-to": { type: "string" }, events: { type: "string" }, platform: { type: "string" } }, spec.usage)
  expectPositionals(positionals, [], spec.usage)
  const target = targetOf(values["forward-to"])
  const types = eventTypesOf(values.events, spec.usage)
  return withSession(env, (session) => listen(ui, session, target, types, values.platform))
}
