import { BadRequestError, CoreApiError, RateLimitError, UnauthorizedError } from "@core/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { iamAccounts } from "../../sdk/src/resources/iam-accounts.js"
import { iamDevice } from "../../sdk/src/resources/iam-device.js"
import { createTransport } from "../../sdk/src/transport.js"
import { freshEmail, type Harness, makeHarness } from "./OAuthHttpSupport.js"

/** The SDK's device login resource against the identity routes on a real server (no gateway: base path ""). */
describe("SDK client.iam device login", () => {
  let harness: Harness
  let server: Awaited<ReturnType<Harness["listen"]>>

  const transport = (token?: string) => createTransport({ baseUrl: server.url, retry: 0, ...(token === undefined ? {} : { token }) })
  const device = (token?: string) => iamDevice(transport(token), "")

  const signUp = async () => {
    const signed = await iamAccounts(transport(), "").signUp({ name: "Ada", email: freshEmail("sdk-device"), password: "correct horse battery staple" })
    return { token: signed.token, email: signed.user.email }
  }

  const failure = async (promise: Promise<unknown>) => {
    const error = await promise.then(() => undefined, (error: unknown) => error)
    expect(error).toBeInstanceOf(CoreApiError)
    return error as CoreApiError
  }

  beforeAll(async () => {
    harness = await makeHarness({ device: { interval: 1, codeTtl: "3 seconds" } })
    server = await harness.listen()
  })
  afterAll(() => harness.dispose())

  it("requests a code, approves it, waits for the tokens, answers whoami and refreshes", async () => {
    const user = await signUp()
    const code = await device().device.requestCode()
    expect(code).toMatchObject({ verification_uri: `${server.url}/device`, expires_in: 3, interval: 1 })
    const pending = await failure(device().device.poll(code.device_code))
    expect(pending).toBeInstanceOf(BadRequestError)
    expect([pending.status, pending.code, pending.message]).toEqual([400, "authorization_pending", "The user has not yet approved the code"])

    expect(await device(user.token).device.authorize(code.user_code)).toEqual({ ok: true })
    const tokens = await device().device.waitForToken(code)
    expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 3600 })
    expect(await device(tokens.access_token).whoami()).toEqual({ email: user.email, platformId: null, role: "user", expiresAt: expect.any(String) })

    const next = await device().oauth.refresh(tokens.refresh_token)
    expect(next.refresh_token).not.toBe(tokens.refresh_token)
    // A duplicate within the grace window answers the same tokens (decision 0196) ...
    expect(await device().oauth.refresh(tokens.refresh_token)).toEqual(next)
    // ... until the new token is spent: then the old one is reuse, and the family is revoked.
    const third = await device().oauth.refresh(next.refresh_token)
    const reused = await failure(device().oauth.refresh(tokens.refresh_token))
    expect([reused.status, reused.code]).toEqual([400, "invalid_grant"])
    expect(await failure(device(third.access_token).whoami())).toBeInstanceOf(UnauthorizedError)
  })

  it("waitForToken ends with access_denied or expired_token", async () => {
    const user = await signUp()
    const declined = await device().device.requestCode()
    await device(user.token).device.deny(declined.user_code)
    expect((await failure(device().device.waitForToken(declined))).code).toBe("access_denied")

    const forgotten = await device().device.requestCode()
    expect((await failure(device().device.waitForToken(forgotten))).code).toBe("expired_token")
  }, 15_000)

  it("reads the metadata; wrong codes are limited", async () => {
    expect((await device().oauth.metadata()).token_endpoint).toBe(`${server.url}/oauth/token`)
    const user = await signUp()
    const unknown = await failure(device(user.token).device.authorize("BBBB-BBBB"))
    expect([unknown.status, unknown.code, unknown.message]).toEqual([400, "invalid_grant", "Unknown code"])
    for (let i = 0; i < 9; i++) await failure(device(user.token).device.authorize("BBBB-BBBB"))
    const limited = await failure(device(user.token).device.authorize("BBBB-BBBB"))
    expect(limited).toBeInstanceOf(RateLimitError)
    expect(limited.code).toBe("slow_down")
  })
})
