/** The bodies that stream: an upstream response as an Effect stream, a web request's body into the upstream. */
import { Cause, Effect, Option, Stream } from "effect"
import type * as http from "node:http"
import type { UpstreamErrorKind } from "../Metrics.js"
import { Abort } from "./upstreamReport.js"

type Read = Effect.Effect<Uint8Array, Option.Option<UpstreamErrorKind>>

const END: Read = Effect.fail(Option.none())
const BROKEN_OFF: Read = Effect.fail(Option.some<UpstreamErrorKind>("unavailable"))
const STOOD_STILL: Read = Effect.fail(Option.some<UpstreamErrorKind>("timeout"))

/**
 * Reads an upstream response chunk by chunk. Its listeners are set once; a read waiting on the
 * upstream is resumed by them or by the idle timer, which runs only while a read waits (a slow
 * client never counts), and can be interrupted at any time (an async iterator over a Node stream
 * cannot: `return()` queues behind the pending `next()`).
 */
class ChunkReader {
  private waiting: ((read: Read) => void) | undefined
  private idle: NodeJS.Timeout | undefined
  private stoodStill = false

  constructor(private readonly body: http.IncomingMessage, private readonly idleMillis: number) {
    body.on("readable", this.onReadable).on("end", this.onEnd).on("close", this.onEnd)
  }

  /** The next chunk; fails with `None` at the end, with the kind when the body breaks off or stands still. */
  readonly read: Read = Effect.async((resume) => {
    const ended = this.ended()
    if (ended !== undefined) return resume(ended)
    const chunk: Uint8Array | null = this.body.read()
    if (chunk !== null) return resume(Effect.succeed(chunk))
    this.waiting = resume
    if (this.idle === undefined) this.idle = setTimeout(this.onIdle, this.idleMillis)
    else this.idle.refresh()
    return Effect.sync(this.stopWaiting)
  })

  private ended(): Read | undefined {
    if (this.stoodStill) return STOOD_STILL
    const body = this.body
    if (!body.destroyed && !body.readableEnded) return undefined
    return body.complete ? END : BROKEN_OFF
  }

  private readonly stopWaiting = (): void => {
    this.waiting = undefined
  }

  private wake(read: Read): void {
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.(read)
  }

  private readonly onReadable = (): void => {
    if (this.waiting === undefined) return
    const chunk: Uint8Array | null = this.body.read()
    if (chunk !== null) this.wake(Effect.succeed(chunk))
  }

  private readonly onEnd = (): void => {
    clearTimeout(this.idle)
    if (this.waiting !== undefined) this.wake(this.ended() ?? END)
  }

  private readonly onIdle = (): void => {
    if (this.waiting === undefined) return
    this.stoodStill = true
    this.wake(STOOD_STILL)
  }
}

/**
 * The upstream's body as a stream pulled only as fast as the client reads, failing with the kind
 * when the upstream breaks off or stands still for `idleMillis`.
 */
export const streamOf = (response: http.IncomingMessage, idleMillis: number): Stream.Stream<Uint8Array, UpstreamErrorKind> =>
  Stream.suspend(() => Stream.repeatEffectOption(new ChunkReader(response, idleMillis).read))

/** Resolves when the upstream takes more of the body (or the request ends, which the exchange reports). */
const drained = (outgoing: http.ClientRequest): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const stop = () => outgoing.off("drain", done).off("close", done)
    const done = () => {
      stop()
      resume(Effect.void)
    }
    outgoing.on("drain", done).on("close", done)
    return Effect.sync(stop)
  })

/**
 * Copy a request body that is not a Node stream (a web request's) into the upstream request with
 * backpressure; a stall of the upstream longer than `idleMillis`, or the body breaking off, aborts
 * the request.
 */
export const pump = <E>(body: Stream.Stream<Uint8Array, E>, outgoing: http.ClientRequest, idleMillis: number) =>
  Stream.runForEach(body, (chunk) =>
    Effect.suspend(() =>
      outgoing.destroyed || outgoing.write(chunk)
        ? Effect.void
        : Effect.timeoutFail(drained(outgoing), { duration: idleMillis, onTimeout: () => new Abort("timeout") })
    )).pipe(
      Effect.matchCauseEffect({
        onSuccess: () => Effect.sync(() => outgoing.end()),
        onFailure: (cause) =>
          Effect.sync(() => {
            if (Cause.isInterruptedOnly(cause)) return
            const failure = Cause.failureOption(cause)
            outgoing.destroy(Option.isSome(failure) && failure.value instanceof Abort ? failure.value : new Abort("client"))
          })
      }),
      Effect.interruptible
    )
