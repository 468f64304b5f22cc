/**
 * A graphile-worker process for `provisioning-queue.bench.ts`: `run()` with concurrency 1 and one
 * no-op task, no batching (no local queue, completions not batched), on `DATABASE_URL`. For each
 * job it prints the milliseconds from its enqueue (`payload.t`, the enqueuer's clock) to the task's
 * start; prints `ready` once it runs. Stops on SIGTERM.
 */
import { Logger, run } from "graphile-worker"

const quiet = new Logger(() => (level: string, message: string) => {
  if (level === "error") process.stderr.write(`${message}\n`)
})

const runner = await run({
  connectionString: process.env.DATABASE_URL!,
  concurrency: 1,
  noHandleSignals: true,
  pollInterval: 1_000,
  logger: quiet,
  taskList: {
    noop: async (payload) => {
      process.stdout.write(`${Date.now() - (payload as { t: number }).t}\n`)
    }
  }
})
process.stdout.write("ready\n")
process.once("SIGTERM", () => void runner.stop().then(() => process.exit(0)))
await runner.promise
