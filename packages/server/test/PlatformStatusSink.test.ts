import { IamMigrations } from "@core/auth"
import { TestDatabase } from "@core/kernel/testing"
import { ProvisioningConfig, ProvisioningMigrations } from "@core/provisioning"
import { PlatformStatusSink, RegistryMigrations } from "@core/registry"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { PlatformStatusSinkLive } from "../src/PlatformStatusSinkLive.js"

/** The registry's suspensions reach identity's platform status and provisioning's (`/internal/platform-status`'s table). */
for (const driver of TestDatabase.drivers) {
  describe(`PlatformStatusSinkLive on ${driver}`, () => {
    const live = PlatformStatusSinkLive.pipe(
      Layer.provide(ProvisioningConfig.layer()),
      Layer.provideMerge(TestDatabase.layer([IamMigrations, RegistryMigrations, ProvisioningMigrations], { driver }))
    )
    layer(live, { timeout: 60_000 })((it) => {
      it.effect("publishes suspended and active to identity and to provisioning", () =>
        Effect.gen(function*() {
          const sink = yield* PlatformStatusSink
          const sql = yield* SqlClient.SqlClient
          yield* sink.publish("plt_01JABCDEFGHJKMNPQRSTVWXYZ0", "suspended", "usr_operator")
          expect(yield* sql`SELECT status FROM provisioning.platform_status WHERE platform_id = 'plt_01JABCDEFGHJKMNPQRSTVWXYZ0'`)
            .toEqual([{ status: "suspended" }])
          expect(yield* sql`SELECT status FROM iam.platform_status WHERE platform_id = 'plt_01JABCDEFGHJKMNPQRSTVWXYZ0'`)
            .toEqual([{ status: "suspended" }])
          yield* sink.publish("plt_01JABCDEFGHJKMNPQRSTVWXYZ0", "active", "usr_operator")
          expect(yield* sql`SELECT status FROM provisioning.platform_status WHERE platform_id = 'plt_01JABCDEFGHJKMNPQRSTVWXYZ0'`)
            .toEqual([{ status: "active" }])
        }))
    })
  })
}
