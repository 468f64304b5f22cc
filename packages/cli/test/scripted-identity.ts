import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** What one device-token poll answers: an OAuth error, approval, or a bare HTTP status. */
export type PollStep = "authorization_pending" | "slow_down" | "expired_token" | "access_denied" | "approve" | { readonly status: number }

/** One request the server received. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
  readonly at: number
}

/** How the scripted identity service behaves; every field can be changed between runs. */
export interface Script {
  /** Status of `POST /oauth/device/code` (200 by default). */
  deviceCodeStatus: number
  expiresIn: number
  interval: number
  /** Answers of successive polls; the last one repeats. */
  polls: Array<PollStep>
  /** Lifetime in seconds of issued access tokens. */
  accessTokenLifetime: number
  /** The identity `whoami` answers for valid tokens (and API keys). */
  identity: { email: string; platformId: string | null; role: string; expiresAt?: string }
  /** Tokens that `whoami` and the API accept besides the issued ones (e.g. API keys). */
  acceptedTokens: Set<string>
}

/** A real HTTP server on 127.0.0.1 playing the identity service and one gateway route, as scripted. */
export interface ScriptedIdentity {
  readonly url: string
  readonly iamUrl: string
  readonly script: Script
  readonly received: Array<Received>
  /** Access tokens currently valid; refresh tokens currently valid and already spent. */
  readonly accessTokens: Set<string>
  readonly refreshTokens: Set<string>
  readonly spentRefreshTokens: Set<string>
  /** Makes every issued access token invalid (as if the session expired server-side). */
  expireAccessTokens(): void
  paths(): Array<string>
  close(): Promise<void>
}

const USER_CODE = "BCDF-GHJK"
const DEVICE_CODE = "device-code-0123456789"

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", "x-request-id": "req-scripted" })
  response.end(JSON.stringify(body))
}

const oauthError = (response: ServerResponse, error: string, description?: string) =>
  json(response, 400, { error, ...(description ? { error_description: description } : {}) })

/** Starts the scripted identity service on 127.0.0.1 port 0. */
export const startScriptedIdentity = async (overrides: Partial<Script> = {}): Promise<ScriptedIdentity> => {
  const script: Script = {
    deviceCodeStatus: 200,
    expiresIn: 600,
    interval: 1,
    polls: ["approve"],
    accessTokenLifetime: 3600,
    identity: { email: "ada@example.com", platformId: "plt_scripted", role: "owner" },
    acceptedTokens: new Set(),
    ...overrides
  }
  const received: Array<Received> = []
  const accessTokens = new Set<string>()
  const refreshTokens = new Set<string>()
  const spentRefreshTokens = new Set<string>()
  let issued = 0
  let polls = 0

  const issue = (response: ServerResponse) => {
    issued += 1
    const access = `access-${issued}`
    const refresh = `refresh-${issued}`
    accessTokens.add(access)
    refreshTokens.add(refresh)
    json(response, 200, { access_token: access, token_type: "bearer", expires_in: script.accessTokenLifetime, refresh_token: refresh })
  }

  const bearerOf = (request: IncomingMessage): string | undefined =>
    (request.headers["x-api-key"] as string | undefined) ?? /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1]

  const authorized = (request: IncomingMessage) => {
    const token = bearerOf(request)
    return token !== undefined && (accessTokens.has(token) || script.acceptedTokens.has(token))
  }

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBody(request)
    const path = (request.url ?? "/").split("?")[0]
    received.push({ method: request.method ?? "GET", path, headers: request.headers, body, at: Date.now() })
    const form = new URLSearchParams(body)
    if (path === "/api/v1/iam/oauth/device/code") {
      if (script.deviceCodeStatus !== 200) return json(response, script.deviceCodeStatus, { error: { code: "NOT_FOUND", message: "nope", requestId: "r" } })
      if (form.get("client_id") !== "core-cli") return oauthError(response, "invalid_client")
      polls = 0
      return json(response, 200, {
        device_code: DEVICE_CODE,
        user_code: USER_CODE,
        verification_uri: `${server.url}/device`,
        verification_uri_complete: `${server.url}/device?user_code=${USER_CODE}`,
        expires_in: script.expiresIn,
        interval: script.interval
      })
    }
    if (path === "/api/v1/iam/oauth/device/token") {
      if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:device_code" || form.get("client_id") !== "core-cli") {
        return oauthError(response, "unsupported_grant_type")
      }
      if (form.get("device_code") !== DEVICE_CODE) return oauthError(response, "invalid_grant")
      const step = script.polls[Math.min(polls, script.polls.length - 1)]
      polls += 1
      if (step === "approve") return issue(response)
      if (typeof step === "object") return json(response, step.status, { error: { code: "X", message: "scripted", requestId: "r" } })
      return oauthError(response, step)
    }
    if (path === "/api/v1/iam/oauth/token") {
      const token = form.get("refresh_token") ?? ""
      if (form.get("grant_type") !== "refresh_token" || form.get("client_id") !== "core-cli") return oauthError(response, "unsupported_grant_type")
      if (!refreshTokens.has(token)) return oauthError(response, "invalid_grant", "Refresh token is not valid")
      refreshTokens.delete(token)
      spentRefreshTokens.add(token)
      return issue(response)
    }
    if (path === "/api/v1/iam/api/v1/cli/whoami") {
      if (!authorized(request)) return json(response, 401, { error: { code: "UNAUTHORIZED", message: "Invalid or expired token", requestId: "req-w" } })
      return json(response, 200, { expiresAt: new Date(Date.now() + 3_600_000).toISOString(), ...script.identity })
    }
    if (path === "/api/v1/iam/api/auth/sign-out") {
      const token = bearerOf(request)
      if (token !== undefined) accessTokens.delete(token)
      return json(response, 200, { success: true })
    }
    if (path === "/api/v1/iam/api/core/roles") {
      if (!authorized(request)) return json(response, 401, { error: { code: "UNAUTHORIZED", message: "Session expired", requestId: "req-401", details: null } })
      return json(response, 200, { data: [{ orgId: "org_1", role: "owner", permissions: ["*"], updatedAt: "2025-01-01T00:00:00.000Z" }] })
    }
    json(response, 404, { error: { code: "NOT_FOUND", message: `No route for ${path}`, requestId: "req-404", details: null } })
  }

  const http: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => json(response, 500, { error: String(error) }))
  })
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  const server: ScriptedIdentity = {
    url,
    iamUrl: `${url}/api/v1/iam`,
    script,
    received,
    accessTokens,
    refreshTokens,
    spentRefreshTokens,
    expireAccessTokens: () => accessTokens.clear(),
    paths: () => received.map((entry) => entry.path.replace("/api/v1/iam", "")),
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections()
        http.close(() => resolve())
      })
  }
  return server
}

/** The user code the scripted server hands out. */
export const SCRIPTED_USER_CODE = USER_CODE

/** An address on 127.0.0.1 where nothing listens (a port just released). */
export const closedAddress = async (): Promise<string> => {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  return `http://127.0.0.1:${port}`
}
