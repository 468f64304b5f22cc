import type { Iam } from "@core/contracts"
import { CoreApiError } from "../errors.js"
import { sleep } from "../retry.js"
import type { Transport } from "../transport.js"

/** Per-call options of the device login methods. */
export interface IamDeviceCallOptions {
  readonly signal?: AbortSignal
}

/** How `device.waitForToken` polls. */
export interface WaitForTokenOptions extends IamDeviceCallOptions {
  /** Called after each `authorization_pending` or `slow_down`, with the interval now in force (seconds). */
  readonly onPending?: (interval: number) => void
}

/**
 * Device login (RFC 8628) and the refresh grant of the identity service, as the `core` command
 * uses them. OAuth failures are thrown as `CoreApiError`s whose `code` is the OAuth `error`
 * (`authorization_pending`, `slow_down`, `expired_token`, `access_denied`, `invalid_grant`, …) and
 * whose `message` is its `error_description`. Nothing here is retried automatically.
 */
export interface IamDevice {
  readonly device: {
    /** `POST /oauth/device/code`: a device code for this client and a user code for the person. */
    readonly requestCode: (input?: { readonly scope?: string }, options?: IamDeviceCallOptions) => Promise<Iam.DeviceCodeResponse>
    /** `POST /oauth/device/token`, once: the tokens, or the OAuth error of the code's state. */
    readonly poll: (deviceCode: string, options?: IamDeviceCallOptions) => Promise<Iam.TokenResponse>
    /**
     * Poll at the code's interval (5 seconds more after each `slow_down`) until the person decides
     * or the code expires: the tokens, else the error (`access_denied`, `expired_token`, …).
     */
    readonly waitForToken: (code: Iam.DeviceCodeResponse, options?: WaitForTokenOptions) => Promise<Iam.TokenResponse>
    /** `POST /oauth/device/authorize`: approve a user code for the client's signed-in user (the activation page's call). */
    readonly authorize: (userCode: string, options?: IamDeviceCallOptions) => Promise<Iam.DeviceDecisionResponse>
    /** `POST /oauth/device/deny`: decline a user code; the device's next poll answers `access_denied`. */
    readonly deny: (userCode: string, options?: IamDeviceCallOptions) => Promise<Iam.DeviceDecisionResponse>
  }
  readonly oauth: {
    /** `POST /oauth/token` with the refresh grant: the next token pair (the presented one is spent). */
    readonly refresh: (refreshToken: string, options?: IamDeviceCallOptions) => Promise<Iam.TokenResponse>
    /** `GET /.well-known/oauth-authorization-server`: the server's OAuth metadata (RFC 8414). */
    readonly metadata: (options?: IamDeviceCallOptions) => Promise<Iam.AuthorizationServerMetadata>
  }
  /** `POST /api/v1/cli/whoami`: the identity behind the client's token or API key. */
  readonly whoami: (options?: IamDeviceCallOptions) => Promise<Iam.CliIdentity>
}

/** The `core` command's OAuth client id, and the two grants (values of `CLIENT_ID` and friends, kept here so the SDK loads no schemas). */
const CLIENT_ID = "core-cli"
const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
const REFRESH_TOKEN_GRANT = "refresh_token"

const signalOf = (options: IamDeviceCallOptions | undefined) => (options?.signal === undefined ? {} : { signal: options.signal })

const isOAuthBody = (body: unknown): body is { error: string; error_description?: unknown } =>
  typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string"

/** The same error, with the OAuth `error` as its code and `error_description` as its message. */
export const withOAuthCode = (error: unknown): unknown => {
  if (!(error instanceof CoreApiError) || !isOAuthBody(error.body)) return error
  const ErrorClass = error.constructor as typeof CoreApiError
  const description = error.body.error_description
  return new ErrorClass({
    status: error.status,
    code: error.body.error,
    message: typeof description === "string" ? description : error.body.error,
    requestId: error.requestId,
    details: null,
    headers: error.headers,
    body: error.body
  })
}

const relabel = <T>(promise: Promise<T>): Promise<T> =>
  promise.catch((error: unknown) => {
    throw withOAuthCode(error)
  })

/**
 * The device login part of `client.iam`, on `transport`, under `basePath` (the gateway's identity
 * prefix by default; `""` for an identity service reached directly).
 */
export const iamDevice = (transport: Transport, basePath = "/api/v1/iam"): IamDevice => {
  const path = (suffix: string) => `${basePath}${suffix}`
  const form = <T>(suffix: string, fields: Record<string, string>, options: IamDeviceCallOptions | undefined) =>
    relabel(transport.request<T>("POST", path(suffix), {
      body: new URLSearchParams(fields),
      idempotencyKey: false,
      ...signalOf(options)
    }))
  const poll = (deviceCode: string, options?: IamDeviceCallOptions) =>
    form<Iam.TokenResponse>("/oauth/device/token", {
      grant_type: DEVICE_CODE_GRANT,
      device_code: deviceCode,
      client_id: CLIENT_ID
    }, options)

  const waitForToken = async (code: Iam.DeviceCodeResponse, options?: WaitForTokenOptions) => {
    let interval = code.interval
    while (true) {
      await sleep(interval * 1000, options?.signal)
      try {
        return await poll(code.device_code, options)
      } catch (error) {
        if (!(error instanceof CoreApiError)) throw error
        if (error.code === "slow_down") interval += 5
        else if (error.code !== "authorization_pending") throw error
        options?.onPending?.(interval)
      }
    }
  }

  return {
    device: {
      requestCode: (input, options) =>
        form("/oauth/device/code", { client_id: CLIENT_ID, ...(input?.scope === undefined ? {} : { scope: input.scope }) }, options),
      poll,
      waitForToken,
      authorize: (userCode, options) => form("/oauth/device/authorize", { user_code: userCode }, options),
      deny: (userCode, options) => form("/oauth/device/deny", { user_code: userCode }, options)
    },
    oauth: {
      refresh: (refreshToken, options) =>
        form("/oauth/token", { grant_type: REFRESH_TOKEN_GRANT, refresh_token: refreshToken, client_id: CLIENT_ID }, options),
      metadata: (options) => relabel(transport.request("GET", path("/.well-known/oauth-authorization-server"), signalOf(options)))
    },
    whoami: (options) => transport.request("POST", path("/api/v1/cli/whoami"), { idempotencyKey: false, ...signalOf(options) })
  }
}
