import type { Iam } from "@core/contracts"
import { DeviceRouteRefs, DEVICE_CLIENT_ID, DEVICE_CODE_GRANT, REFRESH_TOKEN_GRANT } from "@core/contracts/routes"
import { routeCaller } from "../call.js"
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
 * uses them: one method per route of `Iam.DeviceRoutes` (named in each method's comment), their
 * bodies form-encoded as the routes' first content type says. OAuth failures are thrown as
 * `CoreApiError`s whose `code` is the OAuth `error` (`authorization_pending`, `slow_down`,
 * `expired_token`, `access_denied`, `invalid_grant`, …) and whose `message` is its
 * `error_description`. Nothing here is retried automatically.
 */
export interface IamDevice {
  readonly device: {
    /** `requestDeviceCode`: a device code for this client and a user code for the person. */
    readonly requestCode: (input?: { readonly scope?: string }, options?: IamDeviceCallOptions) => Promise<Iam.DeviceCodeResponse>
    /** `deviceToken`, once: the tokens, or the OAuth error of the code's state. */
    readonly poll: (deviceCode: string, options?: IamDeviceCallOptions) => Promise<Iam.TokenResponse>
    /**
     * Poll at the code's interval (5 seconds more after each `slow_down`) until the person decides
     * or the code expires: the tokens, else the error (`access_denied`, `expired_token`, …).
     */
    readonly waitForToken: (code: Iam.DeviceCodeResponse, options?: WaitForTokenOptions) => Promise<Iam.TokenResponse>
    /** `authorizeDevice`: approve a user code for the client's signed-in user (the activation page's call). */
    readonly authorize: (userCode: string, options?: IamDeviceCallOptions) => Promise<Iam.DeviceDecisionResponse>
    /** `denyDevice`: decline a user code; the device's next poll answers `access_denied`. */
    readonly deny: (userCode: string, options?: IamDeviceCallOptions) => Promise<Iam.DeviceDecisionResponse>
  }
  readonly oauth: {
    /** `token` with the refresh grant: the next token pair (the presented one is spent). */
    readonly refresh: (refreshToken: string, options?: IamDeviceCallOptions) => Promise<Iam.TokenResponse>
    /** `authorizationServerMetadata`: the server's OAuth metadata (RFC 8414). */
    readonly metadata: (options?: IamDeviceCallOptions) => Promise<Iam.AuthorizationServerMetadata>
  }
  /** `cliWhoami`: the identity behind the client's token or API key. */
  readonly whoami: (options?: IamDeviceCallOptions) => Promise<Iam.CliIdentity>
}

const Routes: typeof DeviceRouteRefs = DeviceRouteRefs
const client_id = DEVICE_CLIENT_ID

/**
 * The device login part of `client.iam`, on `transport`, under `basePath` (the gateway's identity
 * prefix by default; `""` for an identity service reached directly).
 */
export const iamDevice = (transport: Transport, basePath?: string): IamDevice => {
  const { call } = routeCaller(transport, { basePath, idempotencyKey: false })
  const poll = (deviceCode: string, options?: IamDeviceCallOptions) =>
    call(Routes.deviceToken, { body: { grant_type: DEVICE_CODE_GRANT, device_code: deviceCode, client_id } }, options)

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
      requestCode: (input, options) => call(Routes.requestDeviceCode, { body: { client_id, ...input } }, options),
      poll,
      waitForToken,
      authorize: (userCode, options) => call(Routes.authorizeDevice, { body: { user_code: userCode } }, options),
      deny: (userCode, options) => call(Routes.denyDevice, { body: { user_code: userCode } }, options)
    },
    oauth: {
      refresh: (refreshToken, options) =>
        call(Routes.token, { body: { grant_type: REFRESH_TOKEN_GRANT, refresh_token: refreshToken, client_id } }, options),
      metadata: (options) => call(Routes.authorizationServerMetadata, {}, options)
    },
    whoami: (options) => call(Routes.cliWhoami, {}, options)
  }
}
