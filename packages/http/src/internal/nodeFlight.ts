/**
 * One request on the Node runner, from its fiber's start to its response's end: the answer written
 * when the fiber ends (at once for a route that needs no waiting), a streamed body in a second
 * fiber, the request's scope closed, and the fiber interrupted when the client goes away first.
 */
import { HttpServerError, type HttpServerResponse } from "@effect/platform"
import { Effect, Exit, type Fiber, Runtime } from "effect"
import type * as http from "node:http"
import { write, writeFailure } from "./nodeResponse.js"
import type { RequestScope } from "./requestScope.js"

const FLIGHT = Symbol.for("@core/http/RouteNode/Flight")

type Tagged = http.ServerResponse & { [FLIGHT]?: Flight }

/** The client closed the connection before the answer ended: what runs for it stops. */
function onClose(this: Tagged): void {
  if (!this.writableEnded) this[FLIGHT]?.fiber?.unsafeInterruptAsFork(HttpServerError.clientAbortFiberId)
}

export class Flight {
  fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
  private watching = false

  constructor(
    readonly res: http.ServerResponse,
    readonly head: boolean,
    readonly scope: RequestScope,
    readonly runtime: Runtime.Runtime<never>
  ) {}

  /** Run the request's program: observed to its end, and watched for the client leaving while it waits. */
  start(runtime: Runtime.Runtime<never>, program: Effect.Effect<HttpServerResponse.HttpServerResponse>): void {
    const fiber = Runtime.runFork(runtime, program)
    this.fiber = fiber
    fiber.addObserver((exit) => this.answered(exit))
    if (this.fiber !== undefined) this.watch()
  }

  private watch(): void {
    if (this.watching) return
    this.watching = true
    ;(this.res as Tagged)[FLIGHT] = this
    this.res.on("close", onClose)
  }

  /** The program ended: write its answer, then close the request's scope (after a streamed body). */
  private answered(exit: Exit.Exit<HttpServerResponse.HttpServerResponse>): void {
    this.fiber = undefined
    if (Exit.isFailure(exit)) {
      if (!Exit.isInterrupted(exit)) writeFailure(this.res)
      return this.close(exit)
    }
    let streaming: Effect.Effect<void> | undefined
    try {
      streaming = write(this.res, this.head, exit.value)
    } catch {
      writeFailure(this.res)
    }
    if (streaming === undefined) return this.close(exit)
    const fiber = Runtime.runFork(this.runtime, Effect.ensuring(streaming, this.scope.close(exit)))
    if (fiber.unsafePoll() !== null) return
    this.fiber = fiber
    fiber.addObserver(() => void (this.fiber = undefined))
    this.watch()
  }

  private close(exit: Exit.Exit<unknown, unknown>): void {
    if (this.scope.real !== undefined) Runtime.runFork(this.runtime, this.scope.close(exit))
  }
}
