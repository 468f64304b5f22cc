import { Database, Metrics } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Cause, Clock, Deferred, Duration, Effect, Exit, Fiber, Layer, Option, Queue, Random, Ref, Runtime, Schedule, Stream } from "effect"
import { type JobContext, JobFailed, JobHandlers } from "./JobHandlers.js"
import * as JobOutcomes from "./JobOutcomes.js"
import { CHANNEL, type JobRow, type JobStep } from "./Jobs.js"
import { makeQueueRepo } from "./QueueRepo.js"
import { WORKER_DEFAULTS, WorkerConfig } from "./WorkerConfig.js"

/** How a worker runs (decision 0252). */
export interface WorkerOptions {
  /** Names this worker in `locked_by`. @default a random `worker-…` */
  readonly workerId?: string
  /** Jobs run at once. @default 2 */
  readonly concurrency?: number
  /** How long a claim holds before another worker may take the job; the heartbeat extends it every third of it. @default 15 000 */
  readonly leaseMs?: number
  /** How often an idle worker looks for due jobs without a wake-up. @default 250 on PGlite, 1 000 on PostgreSQL */
  readonly pollMs?: number
  /** The first retry's delay; each further retry doubles it, with jitter. @default 1 000 */
  readonly backoffBaseMs?: number
  /** The longest delay between attempts. @default 300 000 */
  readonly backoffMaxMs?: number
  /**
   * When the worker stops: it claims nothing more and lets its running jobs finish for up to this
   * long, then gives back the rest (decision 0306). @default 0 (given back at once)
   */
  readonly drainMs?: number
}

/**
 * A write of the queue after the claim, tried again while the connection is down (a dropped or
 * terminated backend: the pool reconnects): every such write is guarded by `locked_by` and so
 * safe to repeat, and a completion lost to a broken connection would run the job again once its
 * lease ends (decision 0307).
 */
const durable = <A>(write: Effect.Effect<A>): Effect.Effect<A> =>
  // The retry is set up only once a write failed: the write that succeeds pays for one handler.
  write.pipe(Effect.catchAllDefect(() =>
    write.pipe(
      Effect.catchAllDefect((defect) => Effect.fail(defect)),
      Effect.retry({ times: 40, schedule: Schedule.spaced(Duration.millis(250)) }),
      Effect.orDie
    )
  ))

/** A job whose handler succeeded, its completion not yet written. */
interface Finished {
  readonly id: string
  readonly result: Record<string, unknown>
  /** Whether its completion is told (`job.succeeded`): an outbox is there and the job has an organization. */
  readonly told: boolean
}

const message = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    return typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)
  }
  return Cause.pretty(cause).split("\n")[0] ?? "The handler died"
}

/** The delay before attempt `attempts + 1`: exponential from `base`, capped at `max`, with jitter (half to all of it). */
export const backoff = (attempts: number, base: number, max: number): Effect.Effect<number> =>
  Effect.map(Random.next, (random) => Math.round(Math.min(max, base * 2 ** Math.max(0, attempts - 1)) * (0.5 + random / 2)))

/**
 * The worker: `concurrency` loops, each claiming the next due job, running its type's handler
 * under a lease that a heartbeat extends, and completing it, queueing it again after a backoff, or
 * failing it once its attempts are spent. Woken by `NOTIFY` (`Jobs.enqueue`) and by polling. When
 * its scope closes, it stops claiming and gives back the jobs it runs (queued again at once).
 */
export const run = (options: WorkerOptions = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const handlers = yield* JobHandlers
    const info = yield* Effect.serviceOption(Database.Info)
    const queue = makeQueueRepo(sql)
    const outcomes = yield* JobOutcomes.make
    const workerId = options.workerId ?? `worker-${(yield* Random.nextInt).toString(36)}`
    const leaseMs = options.leaseMs ?? 15_000
    const pollMs = options.pollMs ?? (Option.isSome(info) && info.value.driver === "pg" ? 1_000 : 250)
    const backoffBaseMs = options.backoffBaseMs ?? 1_000
    const backoffMaxMs = options.backoffMaxMs ?? 300_000
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    /**
     * A final-state write and its event in one transaction (a write that finds the job no longer
     * this worker's tells nothing). Only for the jobs whose outcomes are told: the rest keep their
     * single statements (the completion riding on the next claim).
     */
    const writeAndTell = (write: Effect.Effect<Option.Option<JobRow>>, type: (row: JobRow) => JobOutcomes.JobOutcomeEvent) =>
      sql.withTransaction(Effect.flatMap(write, Option.match({ onNone: () => Effect.void, onSome: (row) => outcomes.record(type(row), row) }))).pipe(
        Effect.orDie
      )
    const complete = (done: Finished, at: Date) =>
      done.told ? writeAndTell(queue.complete(done.id, workerId, done.result, at), () => "job.succeeded") : Effect.asVoid(queue.complete(done.id, workerId, done.result, at))

    const wake = yield* Queue.sliding<void>(1)
    // The jobs this worker runs, each its handler's fiber. An operator's cancel or force-complete
    // sends `stop:<jobId>` on the channel (decision 0283); the heartbeat finding a job no longer this
    // worker's is the fallback. Either interrupts the handler.
    const runningJobs = new Map<string, Fiber.RuntimeFiber<Record<string, unknown> | void, unknown>>()
    // Jobs whose handler succeeded, their completion not yet written (it rides on the next claim and
    // is retried across a lost connection): the heartbeat keeps their leases too, so that a slow
    // write does not let another worker run them again.
    const finishing = new Set<string>()
    // The type of each job this worker holds, for the metrics of a lease it lost.
    const typeOfJob = new Map<string, string>()
    // `core_job_queue_depth` is read from the queue when the metrics are scraped (decision 0723).
    const runPromise = Runtime.runPromise(yield* Effect.runtime<never>())
    const depthSource = () => runPromise(queue.depth())
    Metrics.setQueueDepthSource(depthSource)
    yield* Effect.addFinalizer(() => Effect.sync(() => Metrics.clearQueueDepthSource(depthSource)))
    const stopJob = (id: string) => {
      const fiber = runningJobs.get(id)
      return fiber === undefined ? Effect.void : Fiber.interruptFork(fiber)
    }
    // Woken by each job enqueued, and after the listener reconnected (what was sent meanwhile was
    // not heard; decision 0331).
    yield* Database.subscribe(CHANNEL).pipe(
      Stream.runForEach((event) => {
        if (event._tag === "listening") return event.reconnected ? wake.offer(undefined) : Effect.void
        return event.payload.startsWith("stop:") ? stopJob(event.payload.slice(5)) : wake.offer(undefined)
      }),
      Effect.catchAllCause((cause) => Effect.logDebug("provisioning worker: no LISTEN, polling only", cause)),
      Effect.forkScoped
    )
    // One heartbeat for all the jobs this worker runs, every third of the lease: a statement per
    // worker, not a fiber and a statement per job (decision 0330).
    yield* Effect.gen(function*() {
      if (runningJobs.size === 0 && finishing.size === 0) return
      const ids = [...runningJobs.keys(), ...finishing]
      const at = yield* Clock.currentTimeMillis
      const kept = yield* queue.heartbeatAll(ids, workerId, new Date(at + leaseMs), new Date(at))
      const lost = ids.filter((id) => !kept.has(id))
      for (const id of lost) Metrics.jobs.leaseLost(typeOfJob.get(id) ?? "unknown")
      yield* Effect.forEach(lost, stopJob, { discard: true })
    }).pipe(
      // A heartbeat lost to a broken connection is not the handlers' failure: the next one extends the leases.
      Effect.catchAllDefect((defect) => Effect.logWarning("provisioning heartbeat failed", defect)),
      Effect.repeat(Schedule.spaced(Duration.millis(Math.max(10, Math.floor(leaseMs / 3))))),
      Effect.forkScoped
    )

    const perform = (job: JobRow) =>
      Effect.gen(function*() {
        const handler = handlers.get(job.type)
        const started = performance.now()
        Metrics.jobs.started(job.type, ((yield* Clock.currentTimeMillis) - job.runAt.getTime()) / 1_000)
        const ended = (outcome: Metrics.JobAttemptOutcome) => Metrics.jobs.ended(job.type, outcome, (performance.now() - started) / 1_000)
        const steps = yield* Ref.make<ReadonlyArray<JobStep>>(job.steps)
        const progress = yield* Ref.make(job.progress)
        const save = Effect.flatMap(Effect.all([Ref.get(steps), Ref.get(progress), now]), ([s, p, at]) =>
          durable(queue.saveSteps(job.id, workerId, s, p, at)))
        const context: JobContext = {
          step: (name, work) =>
            Effect.gen(function*() {
              if ((yield* Ref.get(steps)).some((s) => s.name === name && s.status === "completed")) return
              const startedAt = (yield* now).toISOString()
              const mark = (status: JobStep["status"], error: string | null) =>
                Effect.flatMap(now, (at) =>
                  Ref.update(steps, (all) => [
                    ...all.filter((s) => s.name !== name),
                    { name, status, startedAt, finishedAt: status === "running" ? null : at.toISOString(), error }
                  ]))
              yield* mark("running", null)
              yield* save
              yield* work.pipe(Effect.tapError((e) => Effect.zipRight(mark("failed", e.message), save)))
              yield* mark("completed", null)
              yield* save
            }),
          progress: (fraction) => Effect.zipRight(Ref.set(progress, Math.min(1, Math.max(0, fraction))), save)
        }
        const work = handler === undefined
          ? Effect.fail(new JobFailed({ message: `No handler for job type ${job.type}` }))
          : handler.run(job, context)
        const fiber = yield* Effect.fork(
          Effect.interruptible(work).pipe(
            Effect.withSpan("Worker.perform", { attributes: { jobId: job.id, type: job.type }, captureStackTrace: false })
          )
        )
        runningJobs.set(job.id, fiber)
        typeOfJob.set(job.id, job.type)
        const exit = yield* Fiber.await(fiber).pipe(
          // The worker stops: the handler with it (and the job is given back, below).
          Effect.onInterrupt(() => Effect.zipRight(Effect.sync(() => ended("released")), Fiber.interrupt(fiber))),
          Effect.ensuring(Effect.sync(() => {
            runningJobs.delete(job.id)
            typeOfJob.delete(job.id)
          }))
        )
        // A success is written by the slot, with its next claim (`completeAndClaim`, decision 0330).
        if (Exit.isSuccess(exit)) {
          ended("succeeded")
          finishing.add(job.id)
          return Option.some<Finished>({ id: job.id, result: exit.value ?? {}, told: outcomes.enabled && JobOutcomes.tellsOutcomes(job) })
        }
        const at = yield* now
        if (Exit.isInterrupted(exit)) {
          ended("released")
          return yield* Effect.as(durable(queue.release(job.id, workerId, at)), Option.none<Finished>())
        }
        const error = message(exit.cause)
        const attempts = handler?.maxAttempts ?? job.maxAttempts
        const retryAt = handler === undefined || job.attempts >= attempts
          ? undefined
          : new Date(at.getTime() + (handler.retryDelayMs?.(job.attempts) ?? (yield* backoff(job.attempts, backoffBaseMs, backoffMaxMs))))
        ended(retryAt === undefined ? "dead_lettered" : "retried")
        yield* Effect.logWarning("provisioning job failed").pipe(
          Effect.annotateLogs({ jobId: job.id, type: job.type, attempt: job.attempts, retry: retryAt !== undefined, error })
        )
        const failure = queue.fail(job.id, workerId, error, at, retryAt)
        yield* durable(
          outcomes.enabled && JobOutcomes.tellsOutcomes(job)
            ? writeAndTell(failure, (row) => (row.status === "FAILED" ? "job.dead_lettered" : "job.failed"))
            : Effect.asVoid(failure)
        )
        return Option.none<Finished>()
      }).pipe(Effect.onInterrupt(() => Effect.flatMap(now, (at) => durable(queue.release(job.id, workerId, at)))))

    // Stopping (decision 0306): no more claims; the running jobs get `drainMs` to finish.
    const stopping = yield* Deferred.make<void>()
    const running = yield* Ref.make(0)
    /** Whether the last failed turn found the database unreachable (one warning per outage). */
    const outage = yield* Ref.make(false)
    /**
     * One loop of the worker. A job that succeeded is completed by the statement that claims the
     * next one (one round trip per job; decision 0330), so the loop runs uninterruptibly but for the
     * handler and the wait: a claim that commits is always followed by its job's run (or release), and
     * a success is always written, at the latest when the worker stops. `running` counts a job until
     * its completion is written.
     */
    const slot = Effect.uninterruptibleMask((restore) => {
      let finished: Finished | undefined
      const cycle = Effect.gen(function*() {
        if (yield* Deferred.isDone(stopping)) {
          if (finished !== undefined) {
            const done = finished
            yield* durable(complete(done, yield* now))
            finishing.delete(done.id)
            finished = undefined
            yield* Ref.update(running, (n) => n - 1)
          }
          return yield* restore(Effect.never)
        }
        // The wake-ups heard so far are for jobs committed before the claim below starts, which sees
        // them: dropped, they do not send this loop to claim again for nothing when it next waits
        // (decision 0336). A wake-up heard from now on stays, and ends the wait at once.
        yield* Queue.takeAll(wake)
        const millis = yield* Clock.currentTimeMillis
        const at = new Date(millis)
        const until = new Date(millis + leaseMs)
        const done = finished
        // A completion that is told is a transaction of its own before the claim.
        if (done?.told === true) yield* durable(complete(done, at))
        const claimed = done === undefined || done.told
          ? yield* queue.claim(workerId, at, until)
          : yield* durable(queue.completeAndClaim(done.id, workerId, done.result, at, until))
        // A claim that reached the database after an outage says so, once for the worker.
        if (yield* Ref.getAndSet(outage, false)) yield* Effect.logInfo("provisioning worker: database reachable again")
        if (done !== undefined) {
          finishing.delete(done.id)
          finished = undefined
          yield* Ref.update(running, (n) => n - 1)
          // The claim saw the completion (decision 0336): nothing due means nothing due, even for a
          // job that waited for the completed one's target.
        }
        if (Option.isSome(claimed)) {
          yield* Ref.update(running, (n) => n + 1)
          const outcome = yield* restore(perform(claimed.value)).pipe(
            Effect.onExit((exit) => Exit.isSuccess(exit) && Option.isSome(exit.value) ? Effect.void : Ref.update(running, (n) => n - 1))
          )
          finished = Option.getOrUndefined(outcome)
          return
        }
        // An idle loop holds no job, so a stop need not end its wait: the scope's close interrupts it,
        // and a wake-up during the drain finds `stopping` done above (one race per wait, not two).
        yield* restore(Effect.raceFirst(wake.take, Effect.sleep(Duration.millis(pollMs))))
      })
      return cycle.pipe(
        Effect.catchAllCause((cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
          // While the database is down, one warning for the worker (no address), not a stack per slot per poll.
          const log = Database.unreachableOf(cause) === undefined
            ? Database.logFailure("provisioning worker", cause)
            : Effect.flatMap(Ref.getAndSet(outage, true), (was) => was ? Effect.void : Database.logFailure("provisioning worker", cause))
          return Effect.zipRight(log, restore(Effect.sleep(Duration.millis(pollMs))))
        }),
        Effect.forever
      )
    })
    yield* Effect.forEach(Array.from({ length: options.concurrency ?? 2 }), () => Effect.forkScoped(slot), { discard: true })
    // Added after the loops, so it runs before their interruption when the scope closes.
    const drainMs = options.drainMs ?? 0
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* Deferred.succeed(stopping, undefined)
        if (drainMs <= 0) return
        const inFlight = yield* Ref.get(running)
        if (inFlight === 0) return
        yield* Effect.logInfo("provisioning worker draining").pipe(Effect.annotateLogs({ workerId, running: inFlight, drainMs }))
        // A finalizer runs uninterruptibly: the wait is made interruptible so that the timeout can end it.
        const drained = yield* Ref.get(running).pipe(
          Effect.repeat({ until: (n) => n === 0, schedule: Schedule.spaced(Duration.millis(20)) }),
          Effect.interruptible,
          Effect.timeoutOption(Duration.millis(drainMs))
        )
        if (Option.isNone(drained)) yield* Effect.logWarning("provisioning worker: jobs still running after the grace period are given back")
      }))
    yield* Effect.logDebug("provisioning worker started").pipe(Effect.annotateLogs({ workerId, pollMs, leaseMs }))
  })

/** The worker as a layer: it runs while the layer's scope is open (the server's services). */
export const layer = (options: WorkerOptions = {}): Layer.Layer<never, never, SqlClient.SqlClient | JobHandlers> =>
  Layer.scopedDiscard(run(options))

/**
 * The worker with the process's `WorkerConfig` (`CORE_WORKER_CONCURRENCY`, `CORE_JOB_LEASE_MS`, …;
 * decision 0304), the defaults without one; `overrides` win (`core-server worker --concurrency`).
 * No worker at all when the concurrency is 0.
 */
export const layerConfig = (overrides: WorkerOptions = {}): Layer.Layer<never, never, SqlClient.SqlClient | JobHandlers> =>
  Layer.unwrapEffect(
    Effect.map(Effect.serviceOption(WorkerConfig), (config) => {
      const settings = Option.getOrElse(config, () => WORKER_DEFAULTS)
      // `CORE_WORKER_CONCURRENCY=0`: the jobs are left to other processes (decision 0554).
      if ((overrides.concurrency ?? settings.concurrency) === 0) return Layer.empty
      return layer({
        concurrency: settings.concurrency,
        leaseMs: settings.leaseMs,
        ...(settings.pollMs === undefined ? {} : { pollMs: settings.pollMs }),
        backoffBaseMs: settings.backoffBaseMs,
        drainMs: settings.drainMs,
        ...(settings.workerId === undefined ? {} : { workerId: settings.workerId }),
        ...overrides
      })
    })
  )
