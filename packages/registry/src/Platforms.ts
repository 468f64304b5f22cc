import { Conflict, Ids, NotFound } from "@core/kernel"
import { Clock, Effect, Option } from "effect"
import { type PlatformRow, PlatformsRepo, type PlatformTier } from "./PlatformsRepo.js"

/** A new platform. Platforms created for an organization by identity's setup start on `free`. */
export interface CreatePlatformInput {
  readonly name: string
  readonly slug: string
  /** @default "starter" (the seed's default for a platform created in the registry) */
  readonly tier?: PlatformTier
  readonly organizationId?: string | null
  readonly ownerUserId?: string | null
}

/** The registry's platforms: creation and lookup (the lifecycle arrives with the registry issue). */
export class Platforms extends Effect.Service<Platforms>()("@core/registry/Platforms", {
  effect: Effect.gen(function*() {
    const repo = yield* PlatformsRepo
    const ids = yield* Ids.Ids

    /** Create an `active` platform; `Conflict` when the slug is taken or the organization has one. */
    const create = (input: CreatePlatformInput): Effect.Effect<PlatformRow, Conflict> =>
      Effect.gen(function*() {
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
        return yield* new Conflict({
          message: slugTaken ? "Platform slug already taken" : "The organization already has a platform",
          details: { field: slugTaken ? "slug" : "organizationId" }
        })
      }).pipe(Effect.withSpan("Platforms.create"))

    /** One platform by id, else `NotFound`. */
    const get = (id: string): Effect.Effect<PlatformRow, NotFound> =>
      repo.findById(id).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new NotFound({ message: "Platform not found" })),
          onSome: Effect.succeed
        })),
        Effect.withSpan("Platforms.get")
      )

    return { create, get } as const
  }),
  dependencies: [PlatformsRepo.Default]
}) {}
