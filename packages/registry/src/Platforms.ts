import type { Registry } from "@core/contracts"
import { type Caller, type Callers, type Conflict, type Forbidden, Ids, type NotFound } from "@core/kernel"
import { Clock, Effect, Option } from "effect"
import { platformConflict, platformNotFound } from "./Errors.js"
import { type PlatformRow, PlatformsRepo, type PlatformTier } from "./PlatformsRepo.js"
import { canRead } from "./Policy.js"

/** A new platform. Platforms created for an organization by identity's setup start on `free`. */
export interface CreatePlatformInput {
  readonly name: string
  readonly slug: string
  /** @default "starter" (the seed's default for a platform created in the registry) */
  readonly tier?: PlatformTier
  readonly organizationId?: string | null
  readonly ownerUserId?: string | null
}

/** A platform as the registry answers it (seed 002's PlatformRecord). */
export const toRecord = (row: PlatformRow): Registry.PlatformRecord => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  status: row.status,
  tier: row.tier,
  organizationId: row.organizationId,
  ownerUserId: row.ownerUserId,
  edgeAccountId: null,
  repoName: null,
  paymentCustomerId: null,
  cancelledAt: null,
  cancellationReason: null,
  suspendedAt: null,
  suspensionReason: null,
  trialEndsAt: null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  deletedAt: row.deletedAt === null ? null : row.deletedAt.toISOString()
})

/** The registry's platforms: creation and lookup (the lifecycle arrives with the registry issue). */
export class Platforms extends Effect.Service<Platforms>()("@core/registry/Platforms", {
  effect: Effect.gen(function*() {
    const repo = yield* PlatformsRepo
    const ids = yield* Ids.Ids

    /** Create an `active` platform; `Conflict` when the slug is taken or the organization has one. */
    const create: (input: CreatePlatformInput) => Effect.Effect<PlatformRow, Conflict> = Effect.fn("Platforms.create")(
      function*(input: CreatePlatformInput) {
        const id = yield* ids.make("plt")
        const now = new Date(yield* Clock.currentTimeMillis)
        const inserted = yield* repo.insert({
          id,
          organizationId: input.organizationId ?? null,
          ownerUserId: input.ownerUserId ?? null,
          name: input.name,
          slug: input.slug,
          tier: input.tier ?? "starter",
          now
        })
        if (Option.isSome(inserted)) return inserted.value
        const slugTaken = Option.isSome(yield* repo.findBySlug(input.slug))
        return yield* platformConflict(slugTaken ? "slug" : "organizationId")
      }
    )

    /** One platform by id, else `NotFound`. */
    const get: (id: string) => Effect.Effect<PlatformRow, NotFound> = Effect.fn("Platforms.get")(function*(id: string) {
      const found = yield* repo.findById(id)
      return Option.isSome(found) ? found.value : yield* platformNotFound
    })

    /** One platform as a caller may see it: another tenant's answers `NotFound` (`Policy.canRead`). */
    const read: (caller: Caller, id: string) => Effect.Effect<PlatformRow, NotFound | Forbidden, Callers> = Effect.fn(
      "Platforms.read"
    )(function*(caller: Caller, id: string) {
      const platform = yield* get(id)
      yield* canRead(caller, platform)
      return platform
    })

    return { create, get, read } as const
  }),
  dependencies: [PlatformsRepo.Default]
}) {}
