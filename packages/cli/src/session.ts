import { CoreApiError, CoreError, createClient, type CoreClient } from "@core/sdk"
import { credentialPaths, readCredentials, withCredentialLock, writeCredentials, type CredentialPaths, type Credentials } from "./credentials.js"
import { CliError, ExitCode } from "./errors.js"
import { authHeader, isApiKey, refreshTokens } from "./oauth.js"

type Env = Readonly<Record<string, string | undefined>>

/** The identity service's namespaces of the SDK (`client.iam`). */
export type IamApi = CoreClient["iam"]

/** A client of the gateway built from the credential file, refreshing the access token as needed. */
export interface Session {
  readonly client: CoreClient
  readonly iam: IamApi
  /** The credentials in use now (after any refresh). */
  readonly credentials: () => Credentials
  /** Why renewing the access token after a 401 failed, if it did (that 401 is then answered as is). */
  readonly renewalFailure: () => unknown
}

/** Seconds of clock skew under which an access token already counts as expired. */
const EXPIRY_MARGIN_MS = 30_000

const notLoggedIn = () => new CliError("Not logged in. Run: core login", ExitCode.failure, "NOT_LOGGED_IN")

/** True when the access token has expired (or is about to). */
export const isExpired = (credentials: Credentials, now = Date.now()): boolean => Date.parse(credentials.expiresAt) - EXPIRY_MARGIN_MS <= now

const ended = (reason: string) =>
  new CliError(`Your session has ended (${reason}). Run: core login`, ExitCode.failure, "SESSION_ENDED")

/**
 * Spends the refresh token at `POST <iam>/oauth/token` and rewrites the file atomically with the
 * rotated pair. Holds the credential lock, and reads the file again under it: when another `core`
 * process has refreshed meanwhile, its pair is used instead of spending a token twice (which would
 * revoke the whole family).
 */
export const refreshSession = (paths: CredentialPaths, stale: Credentials): Promise<Credentials> =>
  withCredentialLock(paths, async () => {
    const latest = readCredentials(paths)
    if (latest === null) throw notLoggedIn()
    if (latest.token !== stale.token && !isExpired(latest)) return latest
    if (latest.refreshToken === null) {
      throw new CliError(`Your login expired at ${latest.expiresAt}. Run: core login`, ExitCode.failure, "LOGIN_EXPIRED")
    }
    const outcome = await refreshTokens(latest.iamUrl, latest.refreshToken)
    switch (outcome._tag) {
      case "Ok": {
        const next: Credentials = {
          ...latest,
          token: outcome.value.accessToken,
          refreshToken: outcome.value.refreshToken ?? latest.refreshToken,
          expiresAt: new Date(Date.now() + outcome.value.expiresIn * 1000).toISOString()
        }
        writeCredentials(paths, next)
        return next
      }
      case "OAuthError":
        throw ended(outcome.error)
      case "HttpError":
        throw new CliError(`Could not renew the session at ${latest.iamUrl} (${outcome.status}: ${outcome.message})`, ExitCode.failure, "REFRESH_FAILED")
      case "Unreachable":
        throw new CliError(`Could not renew the session: the identity service cannot be reached at ${latest.iamUrl} (${outcome.reason})`, ExitCode.failure, "UNREACHABLE")
    }
  })

const replayable = (request: Request): boolean => {
  if (request.body === null) return true
  const type = request.headers.get("content-type") ?? ""
  return type.includes("json") || type.includes("x-www-form-urlencoded")
}

const withAuthorization = (request: Request, token: string): Request => {
  const headers = new Headers(request.headers)
  headers.delete("authorization")
  headers.delete("x-api-key")
  for (const [name, value] of Object.entries(authHeader(token))) headers.set(name, value)
  return new Request(request, { headers, duplex: "half" } as RequestInit)
}

/**
 * Opens a session from `~/.core/credentials.json`: refreshes an expired access token first, and
 * again once when a request answers 401, replaying that request with the new token.
 */
export const openSession = async (env: Env, fetchImpl: typeof fetch = globalThis.fetch): Promise<Session> => {
  const paths = credentialPaths(env)
  let current = readCredentials(paths)
  if (current === null) throw notLoggedIn()
  if (isExpired(current)) {
    if (current.refreshToken === null) {
      throw new CliError(`Your login expired at ${current.expiresAt}. Run: core login`, ExitCode.failure, "LOGIN_EXPIRED")
    }
    current = await refreshSession(paths, current)
  }
  let refreshing: Promise<Credentials> | undefined
  const renew = (stale: Credentials) => (refreshing ??= refreshSession(paths, stale).finally(() => (refreshing = undefined)))

  const authorizedFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init)
    // The command's trace context (`run` sets TRACEPARENT): the gateway continues it.
    if (env.TRACEPARENT !== undefined && !request.headers.has("traceparent")) request.headers.set("traceparent", env.TRACEPARENT)
    const used = current!
    const canRenew = !isApiKey(used.token) && used.refreshToken !== null && replayable(request)
    const spare = canRenew ? request.clone() : undefined
    const response = await fetchImpl(withAuthorization(request, used.token))
    if (response.status !== 401 || spare === undefined) return response
    try {
      current = current!.token === used.token ? await renew(used) : current!
    } catch (error) {
      renewalFailure = error
      return response
    }
    await response.body?.cancel()
    return fetchImpl(withAuthorization(spare, current.token))
  }

  let renewalFailure: unknown
  const client = createClient({ baseUrl: current.apiUrl, fetch: authorizedFetch as typeof fetch })
  return { client, iam: client.iam, credentials: () => current!, renewalFailure: () => renewalFailure }
}

const MAX_ISSUES = 20

/** The `{ path, message }` issues of a validation failure's details (at most {@link MAX_ISSUES}), bounded in length. */
const issuesOf = (details: Record<string, unknown> | null): ReadonlyArray<{ readonly path: string; readonly message: string }> => {
  const issues = details?.issues
  if (!Array.isArray(issues)) return []
  const text = (value: unknown) => (typeof value === "string" ? value.slice(0, 200) : "")
  return issues
    .filter((issue): issue is Record<string, unknown> => typeof issue === "object" && issue !== null)
    .slice(0, MAX_ISSUES)
    .map((issue) => ({ path: text(issue.path), message: text(issue.message) }))
}

/**
 * Turns what an API call threw into the message `core` prints: the API error's message, code and
 * request id, and each validation issue on its own line with its field; a connection failure with
 * the address; anything else as it is.
 */
export const apiFailure = (error: unknown, apiUrl?: string): CliError => {
  if (error instanceof CliError) return error
  if (error instanceof CoreApiError) {
    const requestId = error.requestId ? `, request id ${error.requestId}` : ""
    const issues = issuesOf(error.details)
    return new CliError(`${error.message} (${error.status} ${error.code}${requestId})`, ExitCode.failure, error.code, {
      ...(issues.length === 0 ? {} : { lines: issues.map((issue) => `${issue.path || "(body)"}: ${issue.message}`) }),
      ...(error.details === null ? {} : { details: error.details })
    })
  }
  if (error instanceof CoreError && error.name === "CoreConnectionError") {
    return new CliError(`Cannot reach ${apiUrl ?? "the server"}: ${error.message}`, ExitCode.failure, "UNREACHABLE")
  }
  return new CliError(error instanceof Error ? error.message : String(error))
}

/** Opens a session and runs `action` on it, reporting API failures as {@link apiFailure} does. */
export const withSession = async <A>(env: Env, action: (session: Session) => Promise<A>): Promise<A> => {
  const session = await openSession(env)
  try {
    return await action(session)
  } catch (error) {
    throw apiFailure(session.renewalFailure() ?? error, session.credentials().apiUrl)
  }
}

/** An organization's id from an `org_…` id (as is) or a slug (looked up). */
export const organizationIdOf = async (session: Session, idOrSlug: string): Promise<string> =>
  idOrSlug.startsWith("org_") ? idOrSlug : (await session.iam.organizations.get(idOrSlug)).id

/**
 * The organization a command acts on: `--org` (an `org_…` id, or a slug looked up), else
 * `CORE_ORG`, else the session's active organization (an API key's own organization).
 */
export const resolveOrganization = async (session: Session, env: Env, given: string | undefined): Promise<string> => {
  const value = given ?? (env.CORE_ORG || undefined)
  if (value !== undefined) return organizationIdOf(session, value)
  // An API key belongs to one organization, the only one `organizations.list` answers it.
  const active = isApiKey(session.credentials().token)
    ? (await session.iam.organizations.list())[0]?.id ?? null
    : (await session.iam.sessions.current()).tenant.organizationId
  if (active === null) {
    throw new CliError("No organization given and the session has no active one. Use --org <id or slug> (or set CORE_ORG).", ExitCode.usage, "USAGE")
  }
  return active
}

/** The id of the logged-in user (for `grantedBy`); fails for API keys, which are not users. */
export const currentUserId = async (session: Session): Promise<string> => {
  if (isApiKey(session.credentials().token)) {
    throw new CliError("This needs a user session: API keys have no user id. Run: core login", ExitCode.failure, "USER_SESSION_REQUIRED")
  }
  return (await session.iam.sessions.current()).user.id
}
