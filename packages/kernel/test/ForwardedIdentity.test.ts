import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { ForwardedIdentity } from "../src/index.js"

const key = ForwardedIdentity.keyFrom("s".repeat(40))
const otherKey = ForwardedIdentity.keyFrom("t".repeat(40))
const ada = { userId: "usr_ada", role: "admin", platformId: "plt_1" }
const NOW = Date.UTC(2026, 10, 22, 12)

describe("ForwardedIdentity", () => {
  it("verifies what it signed, for its audience only, until it expires (also when seen before)", () => {
    const token = ForwardedIdentity.sign(key, ada, "registry", NOW)
    for (let i = 0; i < 2; i++) {
      expect(ForwardedIdentity.verify(key, token, "registry", NOW + 1_000)).toEqual(ada)
      expect(ForwardedIdentity.verify(key, token, "billing", NOW + 1_000)).toBeUndefined()
      expect(ForwardedIdentity.verify(otherKey, token, "registry", NOW + 1_000)).toBeUndefined()
      expect(ForwardedIdentity.verify(key, token, "registry", NOW + ForwardedIdentity.LIFETIME_SECONDS * 1000)).toBeUndefined()
    }
  })

  it("refuses a token whose claims or signature were changed", () => {
    const [header, , signature] = ForwardedIdentity.sign(key, ada, "registry", NOW).split(".")
    const claims = Buffer.from(JSON.stringify({ iss: "core-gateway", aud: "registry", sub: "usr_mallory", role: "operator", iat: NOW / 1000, exp: NOW / 1000 + 60 }))
      .toString("base64url")
    expect(ForwardedIdentity.verify(key, `${header}.${claims}.${signature}`, "registry", NOW)).toBeUndefined()
    expect(ForwardedIdentity.verify(key, "a.b", "registry", NOW)).toBeUndefined()
    expect(ForwardedIdentity.verify(key, "x".repeat(5000), "registry", NOW)).toBeUndefined()
  })

  it("lets a service see only the identity headers the gateway signed", async () => {
    const echo = Effect.map(HttpServerRequest.HttpServerRequest, (request) => HttpServerResponse.unsafeJson(request.headers))
    const handler = HttpApp.toWebHandler(ForwardedIdentity.guard(echo, { key, audience: "registry" }))
    const seen = async (headers: Record<string, string>) => (await (await handler(new Request("http://registry/x", { headers }))).json())
    const token = ForwardedIdentity.sign(key, ada, "registry", Date.now())
    const forged = await seen({ "x-core-user-id": "usr_mallory", "x-core-role": "operator" })
    expect([forged["x-core-user-id"], forged["x-core-role"]]).toEqual([undefined, undefined])
    const swapped = await seen({ "x-core-user-id": "usr_mallory", "x-core-role": "operator", "x-core-identity": token })
    expect([swapped["x-core-user-id"], swapped["x-core-role"], swapped["x-core-platform-id"]]).toEqual(["usr_ada", "admin", "plt_1"])
    const signed = await seen(ForwardedIdentity.headersFor(ada, token))
    expect([signed["x-core-user-id"], signed["x-core-role"], signed["x-core-platform-id"]]).toEqual(["usr_ada", "admin", "plt_1"])
  })
})
