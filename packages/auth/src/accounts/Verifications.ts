import { Crypto, Ids } from "@core/kernel"
import { Clock, Duration, Effect, Option } from "effect"
import { type VerificationPurpose, VerificationsRepo } from "./VerificationsRepo.js"

/** How long each kind of one-time token lives. */
export const VERIFICATION_TTL: Record<VerificationPurpose, Duration.Duration> = {
  magic_link: Duration.minutes(10),
  password_reset: Duration.hours(1),
  email_verification: Duration.hours(1)
}

/** What a new one-time token is for. */
export interface VerificationInput {
  readonly purpose: VerificationPurpose
  readonly email: string
  readonly userId: string | null
  readonly callbackUrl?: string | null
  /** Non-secret facts to keep with the token (e.g. the name for a magic-link sign-up). */
  readonly payload?: Record<string, unknown> | null
}

/** One-time tokens (32 random bytes, stored as SHA-256 hashes) that work once, before they expire. */
export class Verifications extends Effect.Service<Verifications>()("@core/auth/Verifications", {
  effect: Effect.gen(function*() {
    const repo = yield* VerificationsRepo
    const ids = yield* Ids.Ids

    /** Issue a token; the plain token is answered once, to go into a link. */
    const issue = (input: VerificationInput) =>
      Effect.gen(function*() {
        const now = new Date(yield* Clock.currentTimeMillis)
        const token = Crypto.randomToken(32)
        yield* repo.insert({
          id: yield* ids.make("vrf"),
          purpose: input.purpose,
          tokenHash: Crypto.sha256Hex(token),
          email: input.email,
          userId: input.userId,
          callbackUrl: input.callbackUrl ?? null,
          payload: input.payload ?? null,
          expiresAt: new Date(now.getTime() + Duration.toMillis(VERIFICATION_TTL[input.purpose])),
          now
        })
        return token
      }).pipe(Effect.withSpan("Verifications.issue", { attributes: { purpose: input.purpose } }))

    /** Spend a token: its record, or `None` when unknown, used, expired or for another purpose. */
    const consume = (purpose: VerificationPurpose, token: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (millis) => repo.consume(purpose, Crypto.sha256Hex(token), new Date(millis)))
        .pipe(Effect.withSpan("Verifications.consume", { attributes: { purpose } }))

    /** Whether a token is live, without spending it. */
    const isLive = (purpose: VerificationPurpose, token: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (millis) => repo.findLive(purpose, Crypto.sha256Hex(token), new Date(millis)))
        .pipe(Effect.map(Option.isSome))

    /** Retire a purpose's unused tokens for an email, so only the newest link works. */
    const retire = (purpose: VerificationPurpose, email: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (millis) => repo.retire(purpose, email, new Date(millis)))

    return { issue, consume, isLive, retire } as const
  }),
  dependencies: [VerificationsRepo.Default]
}) {}
