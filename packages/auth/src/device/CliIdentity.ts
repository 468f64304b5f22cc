import type { Iam } from "@core/contracts"
import { type Unauthorized } from "@core/kernel"
import { Effect, Option } from "effect"
import { API_KEY_PREFIX, ApiKeys } from "../authorization/ApiKeys.js"
import { ApiKeysRepo } from "../authorization/ApiKeysRepo.js"
import { SessionContext } from "../accounts/SessionContext.js"
import { UsersRepo } from "../accounts/UsersRepo.js"
import { invalidCredentials } from "../Errors.js"

/** The role `whoami` answers for a session without a tenant. */
export const NO_TENANT_ROLE = "user"

/** The role `whoami` answers for an API key (as the gateway forwards it). */
export const API_KEY_ROLE = "apikey"

/**
 * The identity behind the credentials of the `core` command (`POST /api/v1/cli/whoami`): a session
 * token (one lookup by its hash, with its tenant and effective role) or an API key.
 */
export class CliIdentity extends Effect.Service<CliIdentity>()("@core/auth/CliIdentity", {
  effect: Effect.gen(function*() {
    const sessions = yield* SessionContext
    const apiKeys = yield* ApiKeys
    const keys = yield* ApiKeysRepo
    const users = yield* UsersRepo

    /** Email, platform, effective role and expiry of a live session; else `Unauthorized`. */
    const ofSession = (token: string): Effect.Effect<Iam.CliIdentity, Unauthorized> =>
      Effect.flatMap(sessions.describe(token), Option.match({
        onNone: () => Effect.fail(invalidCredentials),
        onSome: (described) =>
          Effect.succeed({
            email: described.user.email,
            platformId: described.tenant.platformId,
            role: described.role ?? NO_TENANT_ROLE,
            expiresAt: described.session.expiresAt.toISOString()
          })
      }))

    /**
     * An API key's identity: its creator's email (else its name, else its id), its platform, role
     * `apikey` and its expiry; unknown, revoked and expired keys fail alike with `Unauthorized`.
     */
    const ofApiKey = (key: string): Effect.Effect<Iam.CliIdentity, Unauthorized> =>
      Effect.gen(function*() {
        const valid = yield* Effect.mapError(apiKeys.validate(key), () => invalidCredentials)
        const record = yield* keys.find(valid.keyId)
        const creator = record === null ? Option.none() : yield* users.findById(record.createdBy)
        return {
          email: Option.match(creator, { onNone: () => record?.name ?? valid.keyId, onSome: (user) => user.email }),
          platformId: valid.platformId,
          role: API_KEY_ROLE,
          expiresAt: record?.expiresAt ?? null
        }
      })

    /** The identity of a presented credential: an API key when it starts with `core_`, else a session token. */
    const identify: (credential: string) => Effect.Effect<Iam.CliIdentity, Unauthorized> = Effect.fn(
      "CliIdentity.identify"
    )(function*(credential: string) {
      return yield* credential.startsWith(API_KEY_PREFIX) ? ofApiKey(credential) : ofSession(credential)
    })

    return { identify } as const
  }),
  dependencies: [ApiKeysRepo.Default, UsersRepo.Default]
}) {}
