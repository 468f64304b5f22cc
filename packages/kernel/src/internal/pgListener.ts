import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import pg from "pg"

/** How long the listener waits before it connects again: 100 ms doubling to 5 s. */
const RETRY_FIRST_MS = 100
const RETRY_MAX_MS = 5_000

/** What a connection of the listener reports: a notification's payload, or that it is (again) listening. */
export type ListenEvent = { readonly _tag: "payload"; readonly payload: string } | { readonly _tag: "listening"; readonly reconnected: boolean }

/**
 * `LISTEN channel` on a connection of its own that is opened again whenever it is lost (a
 * restarted server, `pg_terminate_backend`, a network error), with backoff; the stream ends only
 * when it is closed. `@effect/sql-pg`'s `listen` swallows a lost connection and never hears again
 * (decision 0331). Notifications sent while it was reconnecting are not heard: after each
 * reconnection it emits `listening` with `reconnected: true`, and a listener that must not miss
 * work looks for it then (the provisioning worker claims).
 */
export const listenWithReconnect = (url: string, channel: string): Stream.Stream<ListenEvent> =>
  Stream.asyncScoped<ListenEvent>((emit) =>
    Effect.gen(function*() {
      let closed = false
      let current: pg.Client | undefined
      let timer: ReturnType<typeof setTimeout> | undefined
      let delay = RETRY_FIRST_MS
      let connectedBefore = false
      const retry = () => {
        if (closed || timer !== undefined) return
        timer = setTimeout(() => {
          timer = undefined
          void open()
        }, delay)
        delay = Math.min(RETRY_MAX_MS, delay * 2)
      }
      const open = async () => {
        if (closed) return
        const client = new pg.Client({ connectionString: url, application_name: "core-listen" })
        current = client
        let lost = false
        const onLost = () => {
          if (lost) return
          lost = true
          if (current === client) current = undefined
          client.removeAllListeners("notification")
          void client.end().catch(() => {})
          retry()
        }
        client.on("error", onLost)
        client.on("end", onLost)
        client.on("notification", (message) => {
          if (message.channel === channel && message.payload !== undefined && message.payload !== "") {
            void emit.single({ _tag: "payload", payload: message.payload })
          }
        })
        try {
          await client.connect()
          await client.query(`LISTEN ${client.escapeIdentifier(channel)}`)
          if (closed) return void client.end().catch(() => {})
          delay = RETRY_FIRST_MS
          void emit.single({ _tag: "listening", reconnected: connectedBefore })
          connectedBefore = true
        } catch {
          onLost()
        }
      }
      yield* Effect.addFinalizer(() =>
        Effect.promise(async () => {
          closed = true
          if (timer !== undefined) clearTimeout(timer)
          const client = current
          current = undefined
          if (client !== undefined) {
            client.removeAllListeners()
            client.on("error", () => {})
            await client.end().catch(() => {})
          }
        })
      )
      yield* Effect.sync(() => void open())
    })
  )
