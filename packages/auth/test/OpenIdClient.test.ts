import * as client from "openid-client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "@core/kernel/testing/poll"
import { CLIENT_ID, deviceRow, freshEmail, type Harness, makeHarness } from "./OAuthHttpSupport.js"

/**
 * The device flow driven by a client nobody here wrote: `openid-client` discovers the server's
 * metadata (RFC 8414), starts a device authorization, polls and refreshes against a real server
 * on 127.0.0.1. Device codes poll every second here, so the test need not wait five.
 */
let harness: Harness
let server: Awaited<ReturnType<Harness["listen"]>>
let config: client.Configuration

const api = async (path: string, init: { token?: string; json?: unknown } = {}) => {
  const response = await fetch(`${server.url}${path}`, {
    method: init.json === undefined ? "GET" : "POST",
    headers: {
      ...(init.token === undefined ? {} : { authorization: `Bearer ${init.token}` }),
      ...(init.json === undefined ? {} : { "content-type": "application/json" })
    },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) })
  })
  return { status: response.status, body: await response.json() as any }
}

const signUp = async () => {
  const email = freshEmail("openid")
  const answer = await api("/api/auth/sign-up/email", { json: { name: "Ada", email, password: "correct horse battery staple" } })
  expect(answer.status).toBe(200)
  return { email, id: answer.body.user.id as string, token: answer.body.token as string }
}

const oauthErrorOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(() => undefined, (error: unknown) => error)
  expect(error).toBeInstanceOf(client.ResponseBodyError)
  return (error as client.ResponseBodyError).error
}

beforeAll(async () => {
  harness = await makeHarness({ device: { interval: 1 } })
  server = await harness.listen()
  config = await client.discovery(new URL(server.url), CLIENT_ID, undefined, client.None(), {
    execute: [client.allowInsecureRequests],
    algorithm: "oauth2"
  })
})

afterAll(() => harness?.dispose())

describe("openid-client against a running identity service", () => {
  it("discovers the device authorization and token endpoints", () => {
    expect(config.serverMetadata()).toMatchObject({
      issuer: server.url,
      token_endpoint: `${server.url}/oauth/token`,
      device_authorization_endpoint: `${server.url}/oauth/device/code`,
      token_endpoint_auth_methods_supported: ["none"]
    })
  })

  it("initiateDeviceAuthorization → approve → pollDeviceAuthorizationGrant → refreshTokenGrant; the tokens open /api/core/session", async () => {
    const user = await signUp()
    const device = await client.initiateDeviceAuthorization(config, {})
    expect(device).toMatchObject({
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: `${server.url}/device`,
      verification_uri_complete: `${server.url}/device?user_code=${device.user_code}`,
      expires_in: 600,
      interval: 1
    })

    const polling = client.pollDeviceAuthorizationGrant(config, device)
    // Approve only once the client has polled and been told to wait (the code's row records the poll).
    await eventually(() => harness.run(deviceRow(device.device_code)), (row) => row?.last_polled_at != null, {
      message: "openid-client's first poll of the pending code"
    })
    const approval = await api("/oauth/device/authorize", { token: user.token, json: { user_code: device.user_code } })
    expect(approval).toEqual({ status: 200, body: { ok: true } })
    const tokens = await polling
    expect(tokens.token_type).toBe("bearer")
    expect(tokens.expires_in).toBe(3600)
    expect(typeof tokens.refresh_token).toBe("string")

    const session = await api("/api/core/session", { token: tokens.access_token })
    expect(session.status).toBe(200)
    expect(session.body.user).toMatchObject({ id: user.id, email: user.email })

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!)
    expect(refreshed.access_token).not.toBe(tokens.access_token)
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
    expect((await api("/api/core/session", { token: refreshed.access_token })).status).toBe(200)
    expect((await api("/api/core/session", { token: tokens.access_token })).status).toBe(401)

    // A duplicate of the spent token within the grace window answers the same new tokens (decision 0196).
    const replayed = await client.refreshTokenGrant(config, tokens.refresh_token!)
    expect([replayed.access_token, replayed.refresh_token]).toEqual([refreshed.access_token, refreshed.refresh_token])
    // Once its successor is spent, the old token is reuse: the whole family is revoked.
    const next = await client.refreshTokenGrant(config, refreshed.refresh_token!)
    expect(await oauthErrorOf(client.refreshTokenGrant(config, tokens.refresh_token!))).toBe("invalid_grant")
    expect((await api("/api/core/session", { token: next.access_token })).status).toBe(401)
    expect(await oauthErrorOf(client.refreshTokenGrant(config, next.refresh_token!))).toBe("invalid_grant")
  })

  it("a denied code ends the polling with access_denied", async () => {
    const user = await signUp()
    const device = await client.initiateDeviceAuthorization(config, {})
    const polling = client.pollDeviceAuthorizationGrant(config, device)
    expect(await api("/oauth/device/deny", { token: user.token, json: { user_code: device.user_code } })).toEqual({ status: 200, body: { ok: true } })
    expect(await oauthErrorOf(polling)).toBe("access_denied")
  })

  it("a client polling too fast is told to slow down, and openid-client obeys", async () => {
    const user = await signUp()
    const device = await client.initiateDeviceAuthorization(config, {})
    const fast = { ...device, interval: 0.2 }
    const started = Date.now()
    const polling = client.pollDeviceAuthorizationGrant(config, fast)
    // Approve once the server has told the client to slow down (the code's interval has grown).
    await eventually(() => harness.run(deviceRow(device.device_code)), (row) => Number(row?.interval_seconds) > 1, {
      message: "a slow_down answered to openid-client's fast polling"
    })
    await api("/oauth/device/authorize", { token: user.token, json: { user_code: device.user_code } })
    const tokens = await polling
    expect(typeof tokens.access_token).toBe("string")
    expect(Date.now() - started).toBeGreaterThan(5_000)
  }, 20_000)
})
