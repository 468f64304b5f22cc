import { Iam } from "@core/contracts"
import { Crypto, Ids } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Duration, Effect, Layer, Option } from "effect"
import { randomInt } from "node:crypto"
import { AuditLog, type AuditRequestFacts } from "../audit/AuditLog.js"
import type { UserCaller } from "@core/kernel"
import { type DeviceCodeRecord, DeviceCodesRepo } from "./DeviceCodesRepo.js"
import { OAuthError } from "./OAuthErrors.js"
import { RefreshTokens } from "./RefreshTokens.js"
import * as UserCodeLimiter from "./UserCodeLimiter.js"
import { SharedState } from "../internal/SharedState.js"

/** Lifetimes and limits of device codes; tests and development may shorten them. */
export interface DeviceAuthorizationOptions {
  /** How long a device code and its user code live. @default 10 minutes */
  readonly codeTtl?: Duration.DurationInput
  /** Seconds a client waits between polls. @default 5 */
  readonly interval?: number
  /** Wrong user codes allowed per session (and three times as many per address). @default 10 a minute */
  readonly limits?: UserCodeLimiter.UserCodeLimits
}

/** What `slow_down` adds to the interval (RFC 8628 §3.5). */
export const SLOW_DOWN_STEP_SECONDS = 5
/** The interval never grows past this. */
export const MAX_INTERVAL_SECONDS = 60
/** Expired codes are deleted this long after they expire (their user codes become free again). */
const PURGE_AFTER = Duration.days(1)
const INSERT_ATTEMPTS = 5

/** A device code just issued: the device code is shown once, to the device. */
export interface IssuedDeviceCode {
  readonly deviceCode: string
  /** As shown: `XXXX-XXXX`. */
  readonly userCode: string
  readonly expiresIn: number
  readonly interval: number
  readonly scope: string | null
}

/** A pending code as the activation page shows it before the person decides. */
export interface PendingDeviceCode {
  readonly id: string
  readonly userCode: string
  readonly clientId: string
  readonly scope: string | null
  readonly expiresAt: Date
}

/** A user code as typed: case-insensitive, dashes and spaces ignored; `undefined` unless eight alphabet letters. */
export const normalizeUserCode = (input: string): string | undefined => {
  const compact = input.toUpperCase().replace(/[\s-]+/g, "")
  return compact.length === Iam.USER_CODE_LENGTH && [...compact].every((c) => Iam.USER_CODE_ALPHABET.includes(c))
    ? compact
    : undefined
}

/** A normalized user code as shown: `XXXX-XXXX`. */
export const formatUserCode = (code: string): string => `${code.slice(0, 4)}-${code.slice(4)}`

const drawUserCode = (): string =>
  Array.from({ length: Iam.USER_CODE_LENGTH }, () => Iam.USER_CODE_ALPHABET[randomInt(Iam.USER_CODE_ALPHABET.length)]).join("")

const pendingView = (code: DeviceCodeRecord): PendingDeviceCode => ({
  id: code.id,
  userCode: formatUserCode(code.userCode),
  clientId: code.clientId,
  scope: code.scope,
  expiresAt: code.expiresAt
})

const make = (options: DeviceAuthorizationOptions = {}) =>
  Effect.gen(function*() {
    const repo = yield* DeviceCodesRepo
    const refreshTokens = yield* RefreshTokens
    const audit = yield* AuditLog
    const ids = yield* Ids.Ids
    const sql = yield* SqlClient.SqlClient
    const limiter = UserCodeLimiter.make(yield* SharedState, options.limits)
    const codeTtl = Duration.toMillis(options.codeTtl ?? Duration.minutes(10))
    const interval = options.interval ?? 5
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    const requireClient = (clientId: string) =>
      clientId === Iam.DEVICE_CLIENT_ID ? Effect.void : Effect.fail(OAuthError.invalidClient())

    /** Issue a device code and a user code for the `core-cli` client (RFC 8628 §3.1–3.2). */
    const start = Effect.fn("DeviceAuthorization.start")(
      function*(input: { readonly clientId: string; readonly scope: string | null }) {
        yield* requireClient(input.clientId)
        const at = yield* now
        yield* repo.purgeExpired(new Date(at.getTime() - Duration.toMillis(PURGE_AFTER)))
        const id = yield* ids.make("dvc")
        const deviceCode = Crypto.randomToken(32)
        for (let attempt = 0; attempt < INSERT_ATTEMPTS; attempt++) {
          const inserted = yield* repo.insert({
            id,
            deviceCodeHash: Crypto.sha256Hex(deviceCode),
            userCode: drawUserCode(),
            clientId: input.clientId,
            scope: input.scope,
            intervalSeconds: interval,
            expiresAt: new Date(at.getTime() + codeTtl),
            now: at
          })
          if (Option.isSome(inserted)) {
            return {
              deviceCode,
              userCode: formatUserCode(inserted.value.userCode),
              expiresIn: Math.round(codeTtl / 1000),
              interval,
              scope: input.scope
            } satisfies IssuedDeviceCode
          }
        }
        return yield* Effect.dieMessage("No free user code after several attempts")
      }
    )

    const exchange = (code: DeviceCodeRecord, userId: string, facts: AuditRequestFacts) =>
      Effect.gen(function*() {
        if (!(yield* repo.consume(code.id))) return yield* OAuthError.invalidGrant("The device code was already used")
        const grant = yield* refreshTokens.issue({ userId, clientId: code.clientId, scope: code.scope }, facts)
        yield* repo.attachSession(code.id, grant.sessionId)
        yield* audit.record({
          action: "oauth.token",
          actorId: userId,
          actorType: "user",
          targetType: "session",
          targetId: grant.sessionId,
          metadata: { grantType: Iam.DEVICE_CODE_GRANT, clientId: code.clientId, deviceCodeId: code.id, familyId: grant.familyId }
        }, facts)
        return grant
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))

    const pending = (code: DeviceCodeRecord, at: Date) =>
      Effect.gen(function*() {
        const tooFast = code.lastPolledAt !== null && at.getTime() - code.lastPolledAt.getTime() < code.intervalSeconds * 1000
        const next = tooFast ? Math.min(code.intervalSeconds + SLOW_DOWN_STEP_SECONDS, MAX_INTERVAL_SECONDS) : code.intervalSeconds
        yield* repo.recordPoll(code.id, at, next)
        return yield* tooFast ? OAuthError.slowDown(next) : OAuthError.authorizationPending()
      })

    /**
     * The device code grant (RFC 8628 §3.4–3.5): the tokens once the person approved — exactly once —
     * else `authorization_pending`, `slow_down` (the interval grows by 5 s), `access_denied`,
     * `expired_token` or `invalid_grant`.
     */
    const poll = Effect.fn("DeviceAuthorization.poll")(
      function*(input: { readonly deviceCode: string; readonly clientId: string }, facts: AuditRequestFacts) {
        yield* requireClient(input.clientId)
        const found = yield* repo.findByDeviceCodeHash(Crypto.sha256Hex(input.deviceCode))
        if (Option.isNone(found)) return yield* OAuthError.invalidGrant("Unknown device code")
        const code = found.value
        const at = yield* now
        if (code.clientId !== input.clientId) return yield* OAuthError.invalidGrant("The device code belongs to another client")
        if (code.status === "consumed") return yield* OAuthError.invalidGrant("The device code was already used")
        if (code.expiresAt.getTime() <= at.getTime()) return yield* OAuthError.expiredToken()
        if (code.status === "denied") return yield* OAuthError.accessDenied()
        if (code.status === "pending" || code.userId === null) return yield* pending(code, at)
        return yield* exchange(code, code.userId, facts)
      }
    )

    /** The pending code a person entered, counting wrong entries against their session and address. */
    const findPending = (userCode: string, who: UserCodeLimiter.Entrant) =>
      Effect.gen(function*() {
        const entry = yield* limiter.admit(who)
        const normalized = normalizeUserCode(userCode)
        const found = normalized === undefined ? Option.none() : yield* repo.findByUserCode(normalized)
        if (Option.isNone(found)) return yield* OAuthError.invalidGrant("Unknown code")
        const code = found.value
        if (code.expiresAt.getTime() <= (yield* Clock.currentTimeMillis)) return yield* OAuthError.expiredToken()
        if (code.status !== "pending") return yield* OAuthError.invalidGrant("The code was already used")
        yield* entry.right
        return code
      })

    /** The pending code behind a user code, for the activation page (client, scope, expiry). */
    const lookup = Effect.fn("DeviceAuthorization.lookup")(
      function*(userCode: string, who: UserCodeLimiter.Entrant) {
        return pendingView(yield* findPending(userCode, who))
      }
    )

    const decide = (decision: "approved" | "denied") => {
      const action = decision === "approved" ? "device.approve" : "device.deny"
      return Effect.fn(decision === "approved" ? "DeviceAuthorization.approve" : "DeviceAuthorization.deny")(
        function*(caller: UserCaller, userCode: string, facts: AuditRequestFacts) {
          const code = yield* findPending(userCode, { ip: facts.ip, sessionId: caller.sessionId })
          const decided = yield* repo.decide(code.id, decision, caller.userId, yield* now)
          if (Option.isNone(decided)) return yield* OAuthError.invalidGrant("The code was already used")
          yield* audit.record({
            action,
            actorId: caller.userId,
            actorType: "user",
            targetType: "device_code",
            targetId: code.id,
            metadata: { clientId: code.clientId, scope: code.scope }
          }, facts)
          return pendingView(code)
        },
        (effect, caller, _userCode, facts) =>
          Effect.tapError(effect, (error) =>
            audit.record({
              action,
              outcome: "failure",
              actorId: caller.userId,
              actorType: "user",
              targetType: "device_code",
              metadata: { reason: error.error }
            }, facts))
      )
    }

    return {
      start,
      poll,
      lookup,
      /** Approve a user code for the signed-in user: the device's next poll gets tokens for that user. */
      approve: decide("approved"),
      /** Decline a user code: the device's next poll answers `access_denied`. */
      deny: decide("denied")
    } as const
  })

/**
 * Device authorization (RFC 8628) for the `core-cli` client: device codes of 32 random bytes and
 * user codes of eight base-20 letters (both stored hashed or normalized), ten minutes' life, five
 * seconds' interval, `slow_down` adding five; approval or denial by a signed-in user at the
 * activation page; one exchange per approved code for a device session and a refresh token.
 */
export class DeviceAuthorization extends Effect.Service<DeviceAuthorization>()("@core/auth/DeviceAuthorization", {
  effect: make(),
  dependencies: [DeviceCodesRepo.Default, SharedState.Default]
}) {
  /** The service with other lifetimes (shorter codes and intervals for tests and development). */
  static readonly layerWith = (options: DeviceAuthorizationOptions) =>
    Layer.effect(DeviceAuthorization, Effect.map(make(options), (service) => DeviceAuthorization.make(service))).pipe(
      Layer.provide([DeviceCodesRepo.Default, SharedState.Default])
    )
}
