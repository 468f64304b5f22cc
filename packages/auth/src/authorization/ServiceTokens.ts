import { Iam } from "@core/contracts"
import { CoreConfig, Crypto, type Forbidden } from "@core/kernel"
import { Clock, Effect, Option } from "effect"
import * as Jose from "jose"
import { actorOf } from "../audit/Audit.js"
import { AuditLog } from "../audit/AuditLog.js"
import type { Caller } from "@core/kernel"
import { Access } from "./Access.js"
import { type SigningKeyRow, SigningKeysRepo } from "./SigningKeysRepo.js"

/** The signing algorithm of service tokens (ECDSA P-256 with SHA-256). */
export const SERVICE_TOKEN_ALG = "ES256"

/** The purpose under which the private keys are encrypted with a key derived from `CORE_SECRET`. */
const ENCRYPTION_PURPOSE = "iam.signing-keys"

interface Signer {
  readonly kid: string
  readonly privateKey: Jose.CryptoKey
}

/**
 * Short-lived service-to-service tokens: JWTs signed with an ES256 key that is generated on first
 * use and kept in `iam.signing_keys` (private half encrypted under `CORE_SECRET`); the public keys
 * are published as a JWKS at `/.well-known/jwks.json`.
 */
export class ServiceTokens extends Effect.Service<ServiceTokens>()("@core/auth/ServiceTokens", {
  effect: Effect.gen(function*() {
    const repo = yield* SigningKeysRepo
    const access = yield* Access
    const audit = yield* AuditLog
    const config = yield* CoreConfig
    const encryptionKey = Crypto.deriveKey(config.secret, ENCRYPTION_PURPOSE)
    const lock = yield* Effect.makeSemaphore(1)
    let signer: Signer | undefined

    const load = (row: SigningKeyRow) =>
      Crypto.decrypt(encryptionKey, row.privateJwkEncrypted, row.kid).pipe(
        Effect.flatMap((json) => Effect.promise(() => Jose.importJWK(JSON.parse(json) as Jose.JWK, row.alg))),
        Effect.map((key): Signer => ({ kid: row.kid, privateKey: key as Jose.CryptoKey })),
        Effect.tapError((error) => Effect.logWarning("signing key unreadable; generating a new one", error.reason)),
        Effect.option
      )

    const generate = Effect.gen(function*() {
      const pair = yield* Effect.promise(() => Jose.generateKeyPair(SERVICE_TOKEN_ALG, { extractable: true }))
      const publicJwk = yield* Effect.promise(() => Jose.exportJWK(pair.publicKey))
      const privateJwk = yield* Effect.promise(() => Jose.exportJWK(pair.privateKey))
      const kid = yield* Effect.promise(() => Jose.calculateJwkThumbprint(publicJwk))
      const now = yield* Clock.currentTimeMillis
      yield* repo.insert({
        kid,
        alg: SERVICE_TOKEN_ALG,
        publicJwk: { ...publicJwk, kid, alg: SERVICE_TOKEN_ALG, use: "sig" },
        privateJwkEncrypted: Crypto.encrypt(encryptionKey, JSON.stringify(privateJwk), kid)
      }, new Date(now))
      return { kid, privateKey: pair.privateKey } satisfies Signer
    })

    /** The current signer: cached, else the newest stored key, else a new one. */
    const currentSigner: Effect.Effect<Signer> = Effect.suspend(() =>
      signer !== undefined ? Effect.succeed(signer) : lock.withPermits(1)(Effect.gen(function*() {
        if (signer !== undefined) return signer
        const row = yield* repo.current
        const loaded = row === null ? undefined : Option.getOrUndefined(yield* load(row))
        signer = loaded ?? (yield* generate)
        return signer
      }))
    )

    /** Issue a token for `serviceId` to call `targetService` (static key or operator). */
    const issue: (caller: Caller, input: Iam.ServiceTokenRequest) => Effect.Effect<Iam.ServiceToken, Forbidden> = Effect.fn(
      "ServiceTokens.issue"
    )(
      function*(caller: Caller, input: Iam.ServiceTokenRequest) {
        yield* access.requireOperatorOrService(caller)
        const { kid, privateKey } = yield* currentSigner
        const issuedAt = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const expiresAt = issuedAt + Iam.SERVICE_TOKEN_TTL_SECONDS
        const token = yield* Effect.promise(() =>
          new Jose.SignJWT({})
            .setProtectedHeader({ alg: SERVICE_TOKEN_ALG, kid, typ: "JWT" })
            .setIssuer(Iam.SERVICE_TOKEN_ISSUER)
            .setSubject(input.serviceId)
            .setAudience(input.targetService)
            .setIssuedAt(issuedAt)
            .setExpirationTime(expiresAt)
            .setJti(Crypto.randomToken(16))
            .sign(privateKey)
        )
        yield* audit.record({
          action: "service_token.issue",
          ...actorOf(caller),
          targetType: "service",
          targetId: input.serviceId,
          metadata: { targetService: input.targetService, kid, expiresAt }
        })
        return {
          token,
          tokenType: "Bearer" as const,
          expiresAt: new Date(expiresAt * 1000).toISOString(),
          expiresIn: Iam.SERVICE_TOKEN_TTL_SECONDS
        }
      }
    )

    /** The public keys (JWKS); makes the first key if there is none, so verifiers never see an empty set. */
    const jwks: Effect.Effect<Iam.Jwks> = Effect.gen(function*() {
      yield* currentSigner
      const rows = yield* repo.published
      return { keys: rows.map((row) => row.publicJwk as Iam.Jwks["keys"][number]) }
    }).pipe(Effect.withSpan("ServiceTokens.jwks"))

    return { issue, jwks } as const
  }),
  dependencies: [SigningKeysRepo.Default]
}) {}
