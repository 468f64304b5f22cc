import { Iam } from "@core/contracts"

/** Who called: the owner of the plants they see (their organization, else themselves). */
export interface Caller {
  readonly kind: "user" | "apikey"
  readonly owner: string
}

/** How the store reaches Core. */
export interface CoreAuthOptions {
  /** Core's address (its gateway), e.g. `http://127.0.0.1:8787`. */
  readonly coreUrl: string
  /** `CORE_STATIC_API_KEY`: presented to identity when it validates an API key. */
  readonly staticApiKey: string | undefined
  /** How long one check may take. @default 5000 */
  readonly timeoutMs?: number
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch
}

/** Core could not say who the caller is (down, slow, or answering something unexpected): 502. */
export class CoreUnavailable extends Error {
  readonly _tag = "CoreUnavailable"
}

const MAX_CREDENTIAL_LENGTH = 4096

/** The bearer credential of an `Authorization` header, if any. */
export const bearerOf = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined) return undefined
  const found = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  return found === null || found[1]!.length > MAX_CREDENTIAL_LENGTH ? undefined : found[1]
}

/**
 * Checks a bearer credential with Core's identity service, through Core's gateway, the way the
 * gateway itself does (`IdentityResolver.viaUpstream`): a Core API key (`core_…`) with
 * `POST /api/v1/iam/api/core/apikey/validate` presenting the static key, anything else as a
 * session token with `GET /api/v1/iam/api/core/session`. `undefined` when identity refuses it (401).
 */
export const make = (options: CoreAuthOptions) => {
  const base = options.coreUrl.replace(/\/+$/, "")
  const doFetch = options.fetch ?? globalThis.fetch

  const ask = async <A>(path: string, init: RequestInit): Promise<A | undefined> => {
    let response: Response
    try {
      response = await doFetch(`${base}/api/v1/iam${path}`, { ...init, signal: AbortSignal.timeout(options.timeoutMs ?? 5000) })
    } catch {
      throw new CoreUnavailable("Core could not be reached to check the credentials")
    }
    if (response.status === 401) return undefined
    if (response.status !== 200) throw new CoreUnavailable(`Core answered ${response.status} when checking the credentials`)
    return await response.json() as A
  }

  const verify = async (credential: string): Promise<Caller | undefined> => {
    if (Iam.API_KEY_PATTERN.test(credential)) {
      const key = await ask<Iam.ApiKeyValidation>("/api/core/apikey/validate", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(options.staticApiKey === undefined ? {} : { authorization: `Bearer ${options.staticApiKey}` })
        },
        body: JSON.stringify({ key: credential })
      })
      return key === undefined ? undefined : { kind: "apikey", owner: key.organizationId }
    }
    const session = await ask<Iam.CoreSessionResponse>("/api/core/session", {
      headers: { authorization: `Bearer ${credential}` }
    })
    return session === undefined
      ? undefined
      : { kind: "user", owner: session.tenant.organizationId ?? session.session.userId }
  }

  return { verify }
}

export type CoreAuth = ReturnType<typeof make>
