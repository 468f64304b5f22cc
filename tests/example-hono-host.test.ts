import { serve } from "@hono/node-server"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeHost } from "../examples/hono-host/src/app.js"

describe("examples/hono-host: Core's identity service inside a Hono app", () => {
  const host = makeHost({ env: { NODE_ENV: "test", CORE_DATA_DIR: ":memory:", CORE_SECRET: "hono-host-secret-0123456789abcdef" } })
  let base = ""
  let close = () => {}

  beforeAll(async () => {
    await new Promise<void>((resolve) => {
      const server = serve({ fetch: host.app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
        base = `http://127.0.0.1:${info.port}`
        resolve()
      })
      close = () => server.close()
    })
  }, 120_000)

  afterAll(async () => {
    close()
    await host.dispose()
  })

  it("keeps the host's own routes and serves identity under /identity with its own paths", async () => {
    const home = await fetch(`${base}/`)
    expect(await home.text()).toContain("Hello from the host app")

    const signUp = await fetch(`${base}/identity/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Ada", email: "ada@example.com", password: "correct horse battery" })
    })
    expect(signUp.status).toBe(200)
    const { token, user } = await signUp.json() as { token: string; user: { email: string } }
    expect(user.email).toBe("ada@example.com")

    const session = await fetch(`${base}/identity/api/core/session`, { headers: { authorization: `Bearer ${token}` } })
    expect(session.status).toBe(200)
    expect(await session.json()).toMatchObject({ user: { email: "ada@example.com" }, role: null })

    const code = await fetch(`${base}/identity/oauth/device/code`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-prefix": "/elsewhere" },
      body: "client_id=core-cli"
    })
    const issued = await code.json() as { verification_uri: string; user_code: string; verification_uri_complete: string }
    expect(issued.verification_uri).toBe(`${base}/identity/device`)
    expect(issued.verification_uri_complete).toBe(`${base}/identity/device?user_code=${issued.user_code}`)
    const page = await fetch(`${base}/identity/sign-up`)
    expect(await page.text()).toContain(`<form method="post" action="/identity/sign-up" novalidate>`)

    const missing = await fetch(`${base}/identity/api/core/nothing-here`, { headers: { "x-request-id": "hono-404" } })
    expect([missing.status, await missing.json()]).toEqual([
      404,
      { error: { code: "NOT_FOUND", message: "Route not found", requestId: "hono-404", details: null } }
    ])
  }, 120_000)
})
