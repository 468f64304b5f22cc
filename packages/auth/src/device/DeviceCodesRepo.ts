import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** Where a device code stands. `consumed`: its tokens were issued (a code works once). */
export type DeviceCodeStatus = "pending" | "approved" | "denied" | "consumed"

/** A device code row, without its hash. `userCode` is normalized (eight letters, no dash). */
export interface DeviceCodeRecord {
  readonly id: string
  readonly userCode: string
  readonly clientId: string
  readonly scope: string | null
  readonly status: DeviceCodeStatus
  readonly userId: string | null
  readonly sessionId: string | null
  readonly intervalSeconds: number
  readonly lastPolledAt: Date | null
  readonly expiresAt: Date
  readonly createdAt: Date
}

/** What is stored for a new device code. */
export interface NewDeviceCode {
  readonly id: string
  readonly deviceCodeHash: string
  readonly userCode: string
  readonly clientId: string
  readonly scope: string | null
  readonly intervalSeconds: number
  readonly expiresAt: Date
  readonly now: Date
}

interface Row {
  readonly id: string
  readonly user_code: string
  readonly client_id: string
  readonly scope: string | null
  readonly status: DeviceCodeStatus
  readonly user_id: string | null
  readonly session_id: string | null
  readonly interval_seconds: number
  readonly last_polled_at: unknown
  readonly expires_at: unknown
  readonly created_at: unknown
}

const toRecord = (row: Row): DeviceCodeRecord => ({
  id: row.id,
  userCode: row.user_code,
  clientId: row.client_id,
  scope: row.scope,
  status: row.status,
  userId: row.user_id,
  sessionId: row.session_id,
  intervalSeconds: Number(row.interval_seconds),
  lastPolledAt: Rows.toDateOrNull(row.last_polled_at),
  expiresAt: Rows.toDate(row.expires_at),
  createdAt: Rows.toDate(row.created_at)
})

const first = (rows: ReadonlyArray<Row>) => Option.map(Option.fromNullable(rows[0]), toRecord)

/** The SQL of `iam.device_codes`: lookups by the device code's hash or the normalized user code (unique indexes). */
export class DeviceCodesRepo extends Effect.Service<DeviceCodesRepo>()("@core/auth/DeviceCodesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(
      "id, user_code, client_id, scope, status, user_id, session_id, interval_seconds, last_polled_at, expires_at, created_at"
    )

    /** Insert a code; `None` when its user code (or hash) is taken, so the caller draws another. */
    const insert = Effect.fn("DeviceCodesRepo.insert")(function*(code: NewDeviceCode) {
      const rows = yield* sql<Row>`INSERT INTO iam.device_codes (id, device_code_hash, user_code, client_id, scope, interval_seconds,
          expires_at, created_at)
        VALUES (${code.id}, ${code.deviceCodeHash}, ${code.userCode}, ${code.clientId}, ${code.scope},
          ${code.intervalSeconds}, ${code.expiresAt}, ${code.now})
        ON CONFLICT DO NOTHING
        RETURNING ${columns}`
      return first(rows)
    }, Effect.orDie)

    /** Delete codes that expired before `before` (their user codes become free again). */
    const purgeExpired = Effect.fn("DeviceCodesRepo.purgeExpired")(function*(before: Date) {
      yield* sql`DELETE FROM iam.device_codes WHERE expires_at < ${before}`
    }, Effect.orDie)

    /** The code holding this device code hash. */
    const findByDeviceCodeHash = Effect.fn("DeviceCodesRepo.findByDeviceCodeHash")(function*(hash: string) {
      return first(yield* sql<Row>`SELECT ${columns} FROM iam.device_codes WHERE device_code_hash = ${hash}`)
    }, Effect.orDie)

    /** The code with this normalized user code. */
    const findByUserCode = Effect.fn("DeviceCodesRepo.findByUserCode")(function*(userCode: string) {
      return first(yield* sql<Row>`SELECT ${columns} FROM iam.device_codes WHERE user_code = ${userCode}`)
    }, Effect.orDie)

    /** Remember a poll of a pending code, and its interval (grown after a `slow_down`). */
    const recordPoll = Effect.fn("DeviceCodesRepo.recordPoll")(function*(id: string, now: Date, intervalSeconds: number) {
      yield* sql`UPDATE iam.device_codes SET last_polled_at = ${now}, interval_seconds = ${intervalSeconds}
        WHERE id = ${id} AND status = 'pending'`
    }, Effect.orDie)

    /**
     * Approve or deny a pending, unexpired code for a user; the code, or `None` when it was no
     * longer pending (decided meanwhile) or has expired.
     */
    const decide = Effect.fn("DeviceCodesRepo.decide")(
      function*(id: string, decision: "approved" | "denied", userId: string, now: Date) {
        const rows = yield* sql<Row>`UPDATE iam.device_codes SET status = ${decision}, user_id = ${userId},
          approved_at = CASE WHEN ${decision} = 'approved' THEN ${now}::timestamptz ELSE NULL END,
          denied_at = CASE WHEN ${decision} = 'denied' THEN ${now}::timestamptz ELSE NULL END
        WHERE id = ${id} AND status = 'pending' AND expires_at > ${now}
        RETURNING ${columns}`
        return first(rows)
      },
      Effect.orDie
    )

    /** Spend an approved code; `false` when another exchange spent it first (a code works once). */
    const consume = Effect.fn("DeviceCodesRepo.consume")(function*(id: string) {
      const rows = yield* sql<{ readonly id: string }>`UPDATE iam.device_codes SET status = 'consumed'
        WHERE id = ${id} AND status = 'approved'
        RETURNING id`
      return rows.length === 1
    }, Effect.orDie)

    /** Remember the session a consumed code was exchanged for. */
    const attachSession = Effect.fn("DeviceCodesRepo.attachSession")(function*(id: string, sessionId: string) {
      yield* sql`UPDATE iam.device_codes SET session_id = ${sessionId} WHERE id = ${id}`
    }, Effect.orDie)

    return { insert, purgeExpired, findByDeviceCodeHash, findByUserCode, recordPoll, decide, consume, attachSession } as const
  })
}) {}
