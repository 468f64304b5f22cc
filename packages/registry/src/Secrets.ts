import type { Registry } from "@core/contracts"
import { type Caller, CoreConfig, Crypto, Ids, Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { keysetPage } from "./internal/keysetPage.js"
import { Resources } from "./Resources.js"
import { secretNotFound } from "./Errors.js"

/** The purpose the secrets' key is derived for from `CORE_SECRET` (HKDF, `Crypto.deriveKey`). */
export const SECRETS_KEY_PURPOSE = "registry-secrets-at-rest"

const toRecord = (raw: Record<string, unknown>): Registry.SecretRecord => ({
  id: raw.id as string,
  resourceId: raw.resourceId as string,
  secretName: raw.secretName as string,
  status: raw.status as Registry.SecretStatus,
  lastSetAt: Rows.isoOrNull(raw.lastSetAt),
  createdAt: Rows.iso(raw.createdAt),
  updatedAt: Rows.iso(raw.updatedAt)
})

export { secretNotFound }

/** What binds a ciphertext to its row: a value copied to another resource or name does not decrypt. */
const associatedData = (resourceId: string, secretName: string) => `registry.secrets/${resourceId}/${secretName}`

/**
 * A resource's secret records (seed 002; decision 0245). A value is encrypted with AES-256-GCM
 * under a key derived from `CORE_SECRET` (the kernel's `Crypto`), bound to its resource and name,
 * and never answered by any route nor logged: the records carry only the name, the status and
 * `lastSetAt`. Removing a secret erases its ciphertext and keeps the record (`deleted`).
 */
export class Secrets extends Effect.Service<Secrets>()("@core/registry/Secrets", {
  effect: Effect.gen(function*() {
    const resources = yield* Resources
    const ids = yield* Ids.Ids
    const sql = yield* SqlClient.SqlClient
    const key = Crypto.deriveKey((yield* CoreConfig).secret, SECRETS_KEY_PURPOSE)
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const columns = sql.literal(`id, resource_id AS "resourceId", secret_name AS "secretName", status,
      last_set_at AS "lastSetAt", created_at AS "createdAt", updated_at AS "updatedAt"`)

    const list = Effect.fn("Secrets.list")(
      function*(caller: Caller, platformId: string, resourceId: string, query: Registry.ListSecretsQuery) {
        yield* resources.liveFor(caller, platformId, resourceId, false)
        const clauses = [sql`resource_id = ${resourceId}`, sql`status = ${query.status ?? "active"}`]
        return yield* keysetPage(sql, { table: "registry.secrets", columns }, clauses, query, toRecord)
      }
    )

    /** Set a secret's value (encrypted): `created` when the name was new to the resource. */
    const set = Effect.fn("Secrets.set")(function*(caller: Caller, platformId: string, resourceId: string, secretName: string, value: string) {
      yield* resources.liveFor(caller, platformId, resourceId, true)
      const ciphertext = Crypto.encrypt(key, value, associatedData(resourceId, secretName))
      const at = yield* now
      const id = yield* ids.make("sec")
      const rows = yield* sql<Record<string, unknown>>`INSERT INTO registry.secrets
          (id, resource_id, secret_name, status, ciphertext, last_set_at, created_at, updated_at)
        VALUES (${id}, ${resourceId}, ${secretName}, 'active', ${ciphertext}, ${at}, ${at}, ${at})
        ON CONFLICT (resource_id, secret_name) DO UPDATE SET status = 'active', ciphertext = EXCLUDED.ciphertext,
          last_set_at = EXCLUDED.last_set_at, updated_at = EXCLUDED.updated_at
        RETURNING ${columns}`.pipe(Effect.orDie)
      const record = toRecord(rows[0]!)
      return { record, created: record.id === id }
    })

    /** Remove a secret: its ciphertext erased, its record `deleted`; an unknown or removed name: 404. */
    const remove = Effect.fn("Secrets.remove")(function*(caller: Caller, platformId: string, resourceId: string, secretName: string) {
      yield* resources.liveFor(caller, platformId, resourceId, true)
      const rows = yield* sql`UPDATE registry.secrets SET status = 'deleted', ciphertext = NULL, updated_at = ${yield* now}
        WHERE resource_id = ${resourceId} AND secret_name = ${secretName} AND status = 'active' RETURNING id`.pipe(Effect.orDie)
      if (rows.length === 0) return yield* secretNotFound
    })

    /**
     * A secret's value, for the code that pushes it to the edge (never a route): `none` when the
     * resource has no active secret of that name.
     */
    const reveal = Effect.fn("Secrets.reveal")(function*(resourceId: string, secretName: string) {
      const rows = yield* sql<{ ciphertext: string | null }>`SELECT ciphertext FROM registry.secrets
        WHERE resource_id = ${resourceId} AND secret_name = ${secretName} AND status = 'active'`.pipe(Effect.orDie)
      const ciphertext = rows[0]?.ciphertext
      if (ciphertext === undefined || ciphertext === null) return Option.none<string>()
      return Option.some(yield* Effect.orDie(Crypto.decrypt(key, ciphertext, associatedData(resourceId, secretName))))
    })

    return { list, set, remove, reveal } as const
  })
}) {}
