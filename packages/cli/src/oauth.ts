import { version } from "./version.js"

/** The OAuth client id of the `core` command. */
export const CLIENT_ID = "core-cli"

/** The device code grant type of RFC 8628. */
export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"

/** Answer of `POST /oauth/device/code` (RFC 8628 §3.2). */
export interface DeviceCode {
  readonly deviceCode: string
  readonly userCode: string
  readonly verificationUri: string
  readonly verificationUriComplete: string | undefined
  /** Seconds. */
  readonly expiresIn: number
  /** Seconds between polls. */
  readonly interval: number
}

/** A token response (device poll and refresh). */
export interface Tokens {
  readonly accessToken: string
  readonly refreshToken: string | null
  /** Seconds. */
  readonly expiresIn: number
}

/** The identity record of `POST /api/v1/cli/whoami`. */
export interface Identity {
  readonly email: string
  readonly platformId: string | null
  readonly role: string
  readonly expiresAt: string | undefined
}

/** What one call to the identity service came to. */
export type Outcome<A> =
  | { readonly _tag: "Ok"; readonly value: A }
  /** An RFC 6749 §5.2 error body: `{ error, error_description }`. */
  | { readonly _tag: "OAuthError"; readonly status: number; readonly error: string; readonly description: string | undefined }
  /**
   * Any other non-2xx answer, or a 2xx whose body is not the expected one; `envelope` tells whether
   * the body was Core's error envelope (`{ error: { code, message } }`), i.e. whether Core answered.
   */
  | {
    readonly _tag: "HttpError"
    readonly status: number
    readonly message: string
    readonly requestId: string | undefined
    readonly envelope: boolean
  }
  /** No answer at all: refused, DNS failure, reset, timeout. */
  | { readonly _tag: "Unreachable"; readonly reason: string }

const REQUEST_TIMEOUT_MS = 15_000

/** Joins a base address and a path without doubling or dropping the slash. */
export const joinUrl = (base: string, path: string): string => `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`

const reasonOf = (error: unknown): string => {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause
  if (typeof cause?.code === "string") return cause.code
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return "timed out"
  return typeof cause?.message === "string" ? cause.message : error instanceof Error ? error.message : String(error)
}

const readJson = async (response: Response): Promise<unknown> => {
  const text = await response.text()
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

const send = async <A>(
  url: string,
  init: { readonly body?: string; readonly headers: Record<string, string>; readonly timeoutMs?: number },
  decode: (body: unknown) => A | undefined
): Promise<Outcome<A>> => {
  let response: Response
  let body: unknown
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { accept: "application/json", "user-agent": `core-cli/${version}`, ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body }),
      signal: AbortSignal.timeout(init.timeoutMs ?? REQUEST_TIMEOUT_MS)
    })
    body = await readJson(response)
  } catch (error) {
    return { _tag: "Unreachable", reason: reasonOf(error) }
  }
  if (response.ok) {
    const value = decode(body)
    return value === undefined
      ? { _tag: "HttpError", status: response.status, message: "unexpected response body", requestId: undefined, envelope: false }
      : { _tag: "Ok", value }
  }
  if (isRecord(body) && typeof body.error === "string") {
    const description = typeof body.error_description === "string" ? body.error_description : undefined
    return { _tag: "OAuthError", status: response.status, error: body.error, description }
  }
  const envelope = isRecord(body) && isRecord(body.error) ? body.error : undefined
  return {
    _tag: "HttpError",
    status: response.status,
    message: typeof envelope?.message === "string" ? envelope.message : `HTTP ${response.status}`,
    requestId: typeof envelope?.requestId === "string" ? envelope.requestId : response.headers.get("x-request-id") ?? undefined,
    envelope: typeof envelope?.code === "string" && typeof envelope.message === "string"
  }
}

const postForm = <A>(url: string, fields: Record<string, string>, decode: (body: unknown) => A | undefined) =>
  send(url, { headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() }, decode)

const positiveInteger = (value: unknown, fallback: number): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : fallback

const decodeDeviceCode = (body: unknown): DeviceCode | undefined => {
  if (!isRecord(body)) return undefined
  const { device_code, user_code, verification_uri, verification_uri_complete } = body
  if (typeof device_code !== "string" || typeof user_code !== "string" || typeof verification_uri !== "string") return undefined
  return {
    deviceCode: device_code,
    userCode: user_code,
    verificationUri: verification_uri,
    verificationUriComplete: typeof verification_uri_complete === "string" ? verification_uri_complete : undefined,
    expiresIn: positiveInteger(body.expires_in, 600),
    interval: positiveInteger(body.interval, 5)
  }
}

const decodeTokens = (body: unknown): Tokens | undefined => {
  if (!isRecord(body) || typeof body.access_token !== "string" || body.access_token === "") return undefined
  if (typeof body.token_type !== "string" || body.token_type.toLowerCase() !== "bearer") return undefined
  return {
    accessToken: body.access_token,
    refreshToken: typeof body.refresh_token === "string" && body.refresh_token !== "" ? body.refresh_token : null,
    expiresIn: positiveInteger(body.expires_in, 3600)
  }
}

const decodeIdentity = (body: unknown): Identity | undefined => {
  if (!isRecord(body) || typeof body.email !== "string") return undefined
  return {
    email: body.email,
    platformId: typeof body.platformId === "string" && body.platformId !== "" ? body.platformId : null,
    role: typeof body.role === "string" && body.role !== "" ? body.role : "unknown",
    expiresAt: typeof body.expiresAt === "string" && !Number.isNaN(Date.parse(body.expiresAt)) ? new Date(body.expiresAt).toISOString() : undefined
  }
}

/** `POST <iam>/oauth/device/code` with `client_id=core-cli`, form-encoded. */
export const requestDeviceCode = (iamUrl: string): Promise<Outcome<DeviceCode>> =>
  postForm(joinUrl(iamUrl, "/oauth/device/code"), { client_id: CLIENT_ID }, decodeDeviceCode)

/** One poll of `POST <iam>/oauth/device/token`. */
export const pollDeviceToken = (iamUrl: string, deviceCode: string): Promise<Outcome<Tokens>> =>
  postForm(joinUrl(iamUrl, "/oauth/device/token"), { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: CLIENT_ID }, decodeTokens)

/** The refresh grant at `POST <iam>/oauth/token`; the answer carries the rotated pair. */
export const refreshTokens = (iamUrl: string, refreshToken: string): Promise<Outcome<Tokens>> =>
  postForm(joinUrl(iamUrl, "/oauth/token"), { grant_type: "refresh_token", refresh_token: refreshToken, client_id: CLIENT_ID }, decodeTokens)

/** The shape of an API key (`Iam.API_KEY_PATTERN` of `@core/contracts`, which the bundle does not load). */
export const API_KEY_PATTERN = /^core_[A-Za-z0-9_-]{43}$/

/** True for an API key (`core_…`), which travels as `x-api-key`; anything else is a bearer token. */
export const isApiKey = (token: string): boolean => token.startsWith("core_")

/** The header that carries `token`: `x-api-key` for API keys, else `Authorization: Bearer`. */
export const authHeader = (token: string): Record<string, string> =>
  isApiKey(token) ? { "x-api-key": token } : { authorization: `Bearer ${token}` }

/** `POST <iam>/api/v1/cli/whoami` with the token: the identity behind it. */
export const lookupIdentity = (iamUrl: string, token: string): Promise<Outcome<Identity>> =>
  send(joinUrl(iamUrl, "/api/v1/cli/whoami"), { headers: authHeader(token) }, decodeIdentity)

/** Best-effort `POST <iam>/api/auth/sign-out` with a bearer token; answers whether the server took it. */
export const signOut = async (iamUrl: string, token: string): Promise<boolean> => {
  const outcome = await send(
    joinUrl(iamUrl, "/api/auth/sign-out"),
    { headers: { ...authHeader(token), "content-type": "application/json" }, body: "{}", timeoutMs: 3_000 },
    () => true
  )
  return outcome._tag === "Ok"
}
