import type { Registry } from "@core/contracts"
import { type Caller, CoreConfig, Crypto, Ids } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { makeSecretsRepo } from "./SecretsRepo.js"
import { Resources } from "./Resources.js"
import { secretNotFound } from "./Errors.js"

/** The purpose the secrets' key is derived for from `CORE_SECRET` (HKDF, `Crypto.deriveKey`). */
export const SECRETS_KEY_PURPOSE = "registry-secrets-at-rest"

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
    const repo = makeSecretsRepo(sql)

    const list = Effect.fn("Secrets.list")(
      function*(caller: Caller, platformId: string, resourceId: string, query: Registry.ListSecretsQuery) {
        yield* resources.liveFor(caller, platformId, resourceId, false)
        return yield* repo.list(resourceId, query)
      }
    )

    /** Set a secret's value (encrypted): `created` when the name was new to the resource. */
    const set = Effect.fn("Secrets.set")(function*(caller: Caller, platformId: string, resourceId: string, secretName: string, value: string) {
      yield* resources.liveFor(caller, platformId, resourceId, true)
      const ciphertext = Crypto.encrypt(key, value, associatedData(resourceId, secretName))
      const at = yield* now
      const id = yield* ids.make("sec")
      const record = yield* repo.upsert({ id, resourceId, secretName, ciphertext, at })
      return { record, created: record.id === id }
    })

    /** Remove a secret: its ciphertext erased, its record `deleted`; an unknown or removed name: 404. */
    const remove = Effect.fn("Secrets.remove")(function*(caller: Caller, platformId: string, resourceId: string, secretName: string) {
      yield* resources.liveFor(caller, platformId, resourceId, true)
      if (!(yield* repo.remove(resourceId, secretName, yield* now))) return yield* secretNotFound
    })

    /**
     * A secret's value, for the code that pushes it to the edge (never a route): `none` when the
     * resource has no active secret of that name.
     */
    const reveal = Effect.fn("Secrets.reveal")(function*(resourceId: string, secretName: string) {
      const ciphertext = yield* repo.ciphertext(resourceId, secretName)
      if (Option.isNone(ciphertext)) return Option.none<string>()
      return Option.some(yield* Effect.orDie(Crypto.decrypt(key, ciphertext.value, associatedData(resourceId, secretName))))
    })

    return { list, set, remove, reveal } as const
  })
}) {}
