import { Config as KernelConfig } from "@core/kernel"
import { Config, Context, Layer } from "effect"

/** How the job worker of a process runs (decision 0304); every value has a default. */
export interface WorkerSettings {
  /**
   * Jobs one process runs at once (`CORE_WORKER_CONCURRENCY`, 0 to 256; `core-server worker --concurrency`).
   * 0: this process runs no job worker (`core-server start` or `serve --service provisioning` beside
   * separate `core-server worker` processes; decision 0554). @default 2
   */
  readonly concurrency: number
  /** A claim's lease (`CORE_JOB_LEASE_MS`, 1 000 to 3 600 000): a crashed worker's job is taken again this long after its last heartbeat. @default 15 000 */
  readonly leaseMs: number
  /** How often an idle worker looks for due jobs without a wake-up (`CORE_WORKER_POLL_MS`, 10 to 60 000). @default 250 on PGlite, 1 000 on PostgreSQL */
  readonly pollMs: number | undefined
  /** The first retry's delay (`CORE_JOB_BACKOFF_MS`, 10 to 600 000); each further retry doubles it, with jitter. @default 1 000 */
  readonly backoffBaseMs: number
  /** How long running jobs may finish once the worker stops (`CORE_SHUTDOWN_GRACE_MS`, as the server's requests); the rest are given back. @default 10 000 */
  readonly drainMs: number
  /**
   * `CORE_TEST_JOB_TYPES=1` registers the test-only job types (`test.*`, `TestJobs.ts`) that the
   * reliability tests and the queue benchmark enqueue. Test-only: never set it in production.
   * @default false
   */
  readonly testJobTypes: boolean
  /** The name the worker claims jobs under (`locked_by`; `core-server worker` sets `worker-<host>-<pid>`). @default a random `worker-…` */
  readonly workerId?: string
}

/** The defaults of {@link WorkerSettings}. */
export const WORKER_DEFAULTS: WorkerSettings = {
  concurrency: 2,
  leaseMs: 15_000,
  pollMs: undefined,
  backoffBaseMs: 1_000,
  drainMs: 10_000,
  testJobTypes: false
}

const whole = (name: string, min: number, max: number) =>
  Config.map(
    KernelConfig.setting(name, {
      test: (value) => /^\d{1,7}$/.test(value) && Number(value) >= min && Number(value) <= max,
      must: `must be a whole number from ${min} to ${max}`
    }),
    Number
  )

/** The worker's settings as a service: `layer` from explicit values (tests), `config` from the environment. */
export class WorkerConfig extends Context.Tag("@core/provisioning/WorkerConfig")<WorkerConfig, WorkerSettings>() {
  /** The settings read with the current `ConfigProvider`; a bad value fails naming its variable. */
  static readonly config: Config.Config<WorkerSettings> = Config.all({
    concurrency: Config.withDefault(whole("CORE_WORKER_CONCURRENCY", 0, 256), WORKER_DEFAULTS.concurrency),
    leaseMs: Config.withDefault(whole("CORE_JOB_LEASE_MS", 1_000, 3_600_000), WORKER_DEFAULTS.leaseMs),
    pollMs: Config.withDefault(Config.map(whole("CORE_WORKER_POLL_MS", 10, 60_000), (n): number | undefined => n), undefined),
    backoffBaseMs: Config.withDefault(whole("CORE_JOB_BACKOFF_MS", 10, 600_000), WORKER_DEFAULTS.backoffBaseMs),
    drainMs: Config.withDefault(whole("CORE_SHUTDOWN_GRACE_MS", 1, 600_000), WORKER_DEFAULTS.drainMs),
    testJobTypes: Config.withDefault(
      Config.map(
        KernelConfig.setting("CORE_TEST_JOB_TYPES", { test: (value) => value === "0" || value === "1", must: "must be 0 or 1" }),
        (value) => value === "1"
      ),
      false
    )
  })

  /** From explicit values; what is left out has its default. */
  static readonly layer = (settings: Partial<WorkerSettings> = {}): Layer.Layer<WorkerConfig> =>
    Layer.succeed(WorkerConfig, { ...WORKER_DEFAULTS, ...settings })
}
