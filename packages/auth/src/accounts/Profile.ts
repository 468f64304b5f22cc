import { type NotFound } from "@core/kernel"
import { Clock, Effect, Option } from "effect"
import { AuditLog, type AuditRequestFacts } from "../audit/AuditLog.js"
import { SessionCache } from "./SessionCache.js"
import { type UserRecord, UsersRepo } from "./UsersRepo.js"
import { userNotFound } from "../Errors.js"

/** The fields of a profile change; absent fields stay, `image: null` removes the image. */
export interface ProfileChange {
  readonly name?: string | undefined
  readonly image?: string | null | undefined
}

/** The caller's own profile: read and change name and image. */
export class Profile extends Effect.Service<Profile>()("@core/auth/Profile", {
  effect: Effect.gen(function*() {
    const users = yield* UsersRepo
    const audit = yield* AuditLog
    const cache = yield* SessionCache

    const get = (userId: string): Effect.Effect<UserRecord, NotFound> =>
      Effect.flatMap(users.findById(userId), Option.match({ onNone: () => Effect.fail(userNotFound), onSome: Effect.succeed }))

    /** Apply a change (an empty one answers the profile as it is). */
    const update: (
      userId: string,
      change: ProfileChange,
      facts: AuditRequestFacts
    ) => Effect.Effect<UserRecord, NotFound> = Effect.fn("Profile.update")(
      function*(userId: string, change: ProfileChange, facts: AuditRequestFacts) {
        const current = yield* get(userId)
        if (change.name === undefined && change.image === undefined) return current
        const now = new Date(yield* Clock.currentTimeMillis)
        const updated = yield* users.updateProfile(userId, {
          name: change.name ?? current.name,
          image: change.image === undefined ? current.image : change.image
        }, now)
        if (Option.isNone(updated)) return yield* userNotFound
        yield* cache.clear
        yield* audit.record({
          action: "user.update",
          actorId: userId,
          actorType: "user",
          targetType: "user",
          targetId: userId,
          metadata: { fields: (["name", "image"] as const).filter((key) => change[key] !== undefined) }
        }, facts)
        return updated.value
      }
    )

    return { get, update } as const
  }),
  dependencies: [UsersRepo.Default, SessionCache.Default]
}) {}
