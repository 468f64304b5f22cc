import type { Gateway } from "@core/gateway"
import { Scheduler } from "effect"
import type * as http from "node:http"
import { answer, description } from "./internal/clientErrors.js"

/** What answers while the server starts, then the gateway once it is ready. */
export interface Gate {
  /** The `node:http` listener to serve from the first moment. */
  readonly listener: Gateway.NodeListener
  /** The server is ready: serve `ready` from now on, the requests that wait first, in arrival order. */
  readonly open: (ready: Gateway.NodeListener) => void
  /** How many requests wait for readiness now. */
  readonly waiting: () => number
  /** The server stops before it was ready: answer every waiting request 503 `STARTING` now. */
  readonly close: () => void
}

/** The paths that answer at once while starting (liveness and readiness). */
const PROBES = new Set(["/health", "/ready"])

const pathOf = (url: string | undefined): string => {
  const end = url?.search(/[?#]/) ?? -1
  return url === undefined ? "/" : end === -1 ? url : url.slice(0, end)
}

/**
 * A start-up gate (docs/decisions/0202): `/health` and `/ready` answer at once from `probes`; every
 * other request waits for `open` up to `waitMs`, then answers 503 `STARTING` with `Retry-After`,
 * never a 502. A caller that goes away while it waits is forgotten.
 */
export const make = (options: { readonly probes: Gateway.NodeListener; readonly waitMs: number }): Gate => {
  const queue = new Set<{ request: http.IncomingMessage; response: http.ServerResponse; timer: NodeJS.Timeout }>()
  let target: Gateway.NodeListener | undefined
  const retryAfter = String(Math.max(1, Math.ceil(options.waitMs / 1_000)))

  const refuse = (response: http.ServerResponse) => {
    if (response.headersSent || response.destroyed) return
    answer(response, description(503, "STARTING", "The server is starting; try again shortly", { "retry-after": retryAfter }))
  }

  const listener: Gateway.NodeListener = (request, response) => {
    if (target !== undefined) return target(request, response)
    if (PROBES.has(pathOf(request.url))) return options.probes(request, response)
    const entry = {
      request,
      response,
      timer: setTimeout(() => {
        queue.delete(entry)
        refuse(response)
      }, options.waitMs)
    }
    queue.add(entry)
    response.once("close", () => {
      clearTimeout(entry.timer)
      queue.delete(entry)
    })
  }

  const open = (ready: Gateway.NodeListener) => {
    target = ready
    for (const entry of queue) {
      clearTimeout(entry.timer)
      queue.delete(entry)
      if (!entry.response.destroyed) ready(entry.request, entry.response)
    }
  }

  const close = () => {
    for (const entry of queue) {
      clearTimeout(entry.timer)
      queue.delete(entry)
      refuse(entry.response)
    }
  }

  return { listener, open, waiting: () => queue.size, close }
}

/**
 * A scheduler under which a fiber that has run its share of operations lets the event loop turn
 * (`setImmediate`) before it goes on, while the server starts: building the services is a block of
 * Effect work of a few hundred milliseconds that would otherwise stall `/health` and the gate's
 * timers (docs/decisions/0210). After `done()` it is the default scheduler (the runtime the
 * listeners capture keeps it).
 */
export const startingScheduler = (): { readonly scheduler: Scheduler.Scheduler; readonly done: () => void } => {
  let starting = true
  const scheduler = Scheduler.make(
    (task, priority) => starting ? void setImmediate(task) : Scheduler.defaultScheduler.scheduleTask(task, priority),
    (fiber) => Scheduler.defaultScheduler.shouldYield(fiber)
  )
  return { scheduler, done: () => (starting = false) }
}
