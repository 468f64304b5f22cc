import { Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { Platforms, RegistryMigrations } from "../src/index.js"

for (const driver of TestDatabase.drivers) {
  describe(`Platforms on ${driver}`, () => {
    const database = TestDatabase.layer([RegistryMigrations], { driver })
    const live = Platforms.Default.pipe(Layer.provide(Ids.layerTest), Layer.provideMerge(database))

    layer(live)((it) => {
      it.effect("creates an active platform on the starter tier by default", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(Date.parse("2026-03-01T10:00:00.000Z"))
          const platform = yield* Effect.flatMap(Platforms, (p) => p.create({ name: "Acme", slug: "acme" }))
          expect(platform).toEqual({
            id: expect.stringMatching(/^plt_[0-9A-Z]{26}$/),
            organizationId: null,
            ownerUserId: null,
            name: "Acme",
            slug: "acme",
            tier: "starter",
            status: "active",
            edgeAccountId: null,
            repoName: null,
            paymentCustomerId: null,
            cancelledAt: null,
            cancellationReason: null,
            suspendedAt: null,
            suspensionReason: null,
            trialEndsAt: null,
            version: 1,
            createdAt: new Date("2026-03-01T10:00:00.000Z"),
            updatedAt: new Date("2026-03-01T10:00:00.000Z"),
            deletedAt: null
          })
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql`SELECT id, slug, tier, status FROM registry.platforms WHERE slug = 'acme'`
          expect(rows).toEqual([{ id: platform.id, slug: "acme", tier: "starter", status: "active" }])
          expect(yield* Effect.flatMap(Platforms, (p) => p.get(platform.id))).toEqual(platform)
        }))

      it.effect("creates an organization's platform on the tier it is given", () =>
        Effect.gen(function*() {
          const platform = yield* Effect.flatMap(Platforms, (p) =>
            p.create({ name: "Beta", slug: "beta", tier: "free", organizationId: "org_1", ownerUserId: "usr_1" }))
          expect(platform).toMatchObject({ tier: "free", organizationId: "org_1", ownerUserId: "usr_1" })
        }))

      it.effect("refuses a taken slug and a second platform for one organization with Conflict", () =>
        Effect.gen(function*() {
          const platforms = yield* Platforms
          yield* platforms.create({ name: "Gamma", slug: "gamma", organizationId: "org_2" })
          const slug = yield* Effect.flip(platforms.create({ name: "Other", slug: "gamma" }))
          expect(slug).toMatchObject({ _tag: "Conflict", message: "Platform slug already taken", details: { field: "slug" } })
          const organization = yield* Effect.flip(platforms.create({ name: "Other", slug: "delta", organizationId: "org_2" }))
          expect(organization).toMatchObject({
            _tag: "Conflict",
            message: "The organization already has a platform",
            details: { field: "organizationId" }
          })
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql`SELECT slug FROM registry.platforms WHERE slug IN ('gamma', 'delta') ORDER BY slug`
          expect(rows).toEqual([{ slug: "gamma" }])
        }))

      it.effect("answers NotFound for an unknown platform", () =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(Effect.flatMap(Platforms, (p) => p.get("plt_unknown")))
          expect(error).toMatchObject({ _tag: "NotFound", message: "Platform not found" })
        }))
    })
  })
}
