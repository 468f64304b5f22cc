import { describe, expect } from "vitest"
import { Duration, Effect, TestClock } from "effect"
import {
  type Answer,
  CLIENT_ID,
  DEVICE_GRANT,
  deviceRow,
  newUser,
  oauthError,
  refreshRow,
  type Send,
  send,
  useHarness
} from "./OAuthHttpSupport.js"

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" }

const expectNoStore = (answer: Answer) => {
  expect(answer.headers.get("cache-control")).toBe(NO_STORE["cache-control"])
  expect(answer.headers.get("pragma")).toBe(NO_STORE.pragma)
}

const requestCode = (init: Send = { form: { client_id: CLIENT_ID } }) => send("/oauth/device/code", init)

const pollAt = (path: "/oauth/device/token" | "/oauth/token", deviceCode: string, json = false) => {
  const fields = { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: CLIENT_ID }
  return send(path, json ? { json: fields } : { form: fields })
}

const refreshAt = (path: "/oauth/device/token" | "/oauth/token", refreshToken: string, json = false) => {
  const fields = { grant_type: "refresh_token", refresh_token: refreshToken, client_id: CLIENT_ID }
  return send(path, json ? { json: fields } : { form: fields })
}

describe("OAuth device routes over HTTP", () => {
  const it = useHarness()

  describe("POST /oauth/device/code", () => {
    it.effect("answers the device code response, form-encoded or JSON, never cached", () =>
      Effect.gen(function*() {
        for (const init of [{ form: { client_id: CLIENT_ID } }, { json: { client_id: CLIENT_ID } }] satisfies Array<Send>) {
          const answer = yield* requestCode(init)
          expect(answer.status).toBe(200)
          expectNoStore(answer)
          expect(answer.body).toEqual({
            device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
            user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
            verification_uri: "http://iam.test/device",
            verification_uri_complete: `http://iam.test/device?user_code=${answer.body.user_code}`,
            expires_in: 600,
            interval: 5
          })
        }
      }))

    it.effect("through the gateway the addresses carry its prefix; a scope is kept and echoed", () =>
      Effect.gen(function*() {
        const answer = yield* requestCode({
          form: { client_id: CLIENT_ID, scope: "deploy read" },
          headers: { "x-forwarded-prefix": "/api/v1/iam" }
        })
        expect(answer.body).toMatchObject({
          verification_uri: "http://iam.test/api/v1/iam/device",
          verification_uri_complete: `http://iam.test/api/v1/iam/device?user_code=${answer.body.user_code}`,
          scope: "deploy read"
        })
        expect((yield* deviceRow(answer.body.device_code)).scope).toBe("deploy read")
        const odd = yield* requestCode({ form: { client_id: CLIENT_ID }, headers: { "x-forwarded-prefix": "/x/../<script>" } })
        expect(odd.body.verification_uri).toBe("http://iam.test/device")
      }))

    it.effect("unknown client: 401 invalid_client; missing client_id, bad bodies and bad scopes: 400, never the envelope", () =>
      Effect.gen(function*() {
        const cases: Array<[Send, number, string]> = [
          [{ form: { client_id: "someone-else" } }, 401, "invalid_client"],
          [{ form: {} }, 400, "invalid_request"],
          [{ method: "POST" }, 400, "invalid_request"],
          [{ json: { client_id: 42 } }, 400, "invalid_request"],
          [{ json: [CLIENT_ID] }, 400, "invalid_request"],
          [{ body: "{not json", headers: { "content-type": "application/json" } }, 400, "invalid_request"],
          [{ body: "client_id=core-cli", headers: { "content-type": "text/plain" } }, 400, "invalid_request"],
          [{ body: "client_id=core-cli&client_id=core-cli", headers: { "content-type": "application/x-www-form-urlencoded" } }, 400, "invalid_request"],
          [{ form: { client_id: CLIENT_ID, scope: "bad\"scope" } }, 400, "invalid_scope"],
          [{ form: { client_id: CLIENT_ID, scope: "a".repeat(300) } }, 400, "invalid_scope"],
          [{ form: { client_id: CLIENT_ID, padding: "x".repeat(20_000) } }, 400, "invalid_request"],
          [{ json: { client_id: "core-cli\u0000" } }, 401, "invalid_client"],
          [{ json: { client_id: CLIENT_ID, scope: "read\u0000" } }, 400, "invalid_scope"]
        ]
        for (const [init, status, error] of cases) {
          const answer = yield* requestCode(init)
          expect([answer.status, answer.body]).toEqual([status, oauthError(error)])
          expectNoStore(answer)
        }
      }))
  })

  describe("the token routes", () => {
    it.effect("the whole flow: pending, approve with the session bearer, tokens once, refresh at either route", () =>
      Effect.gen(function*() {
        const user = yield* newUser("flow")
        const { body: code } = yield* requestCode()
        const pending = yield* pollAt("/oauth/device/token", code.device_code)
        expect([pending.status, pending.body]).toEqual([400, oauthError("authorization_pending")])
        expectNoStore(pending)

        const approved = yield* send("/oauth/device/authorize", { token: user.token, json: { user_code: code.user_code } })
        expect([approved.status, approved.body]).toEqual([200, { ok: true }])
        expectNoStore(approved)

        yield* TestClock.adjust(Duration.seconds(5))
        const granted = yield* pollAt("/oauth/token", code.device_code, true)
        expect(granted.status).toBe(200)
        expectNoStore(granted)
        expect(granted.body).toEqual({
          access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          token_type: "bearer",
          expires_in: 3600,
          refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/)
        })
        const session = yield* send("/api/core/session", { token: granted.body.access_token })
        expect(session.status).toBe(200)
        expect(session.body.user).toMatchObject({ id: user.id, email: user.email })

        const again = yield* pollAt("/oauth/device/token", code.device_code)
        expect([again.status, again.body]).toEqual([400, oauthError("invalid_grant")])

        const first = yield* refreshAt("/oauth/device/token", granted.body.refresh_token)
        expect(first.status).toBe(200)
        const second = yield* refreshAt("/oauth/token", first.body.refresh_token, true)
        expect(second.status).toBe(200)
        expect((yield* send("/api/core/session", { token: granted.body.access_token })).status).toBe(401)
        expect((yield* send("/api/core/session", { token: second.body.access_token })).status).toBe(200)

        const reused = yield* refreshAt("/oauth/token", granted.body.refresh_token)
        expect([reused.status, reused.body]).toEqual([400, oauthError("invalid_grant")])
        expect((yield* send("/api/core/session", { token: second.body.access_token })).status).toBe(401)
        expect((yield* refreshRow(second.body.refresh_token)).status).toBe("revoked")
      }))

    it.effect("slow_down over HTTP, then expired_token; deny answers access_denied", () =>
      Effect.gen(function*() {
        const user = yield* newUser("states")
        const { body: slow } = yield* requestCode()
        yield* pollAt("/oauth/device/token", slow.device_code)
        const tooFast = yield* pollAt("/oauth/device/token", slow.device_code)
        expect([tooFast.status, tooFast.body]).toEqual([400, oauthError("slow_down", "Poll at most every 10 seconds")])
        yield* TestClock.adjust(Duration.minutes(10))
        const expired = yield* pollAt("/oauth/token", slow.device_code)
        expect([expired.status, expired.body]).toEqual([400, oauthError("expired_token")])

        const { body: declined } = yield* requestCode()
        const denied = yield* send("/oauth/device/deny", { token: user.token, form: { user_code: declined.user_code } })
        expect([denied.status, denied.body]).toEqual([200, { ok: true }])
        const answer = yield* pollAt("/oauth/device/token", declined.device_code)
        expect([answer.status, answer.body]).toEqual([400, oauthError("access_denied")])
      }))

    it.effect("bad grants and parameters answer their OAuth errors, never a 500", () =>
      Effect.gen(function*() {
        const cases: Array<[Send, number, string]> = [
          [{ form: { client_id: CLIENT_ID } }, 400, "invalid_request"],
          [{ form: { grant_type: "password", client_id: CLIENT_ID, username: "a", password: "b" } }, 400, "unsupported_grant_type"],
          [{ form: { grant_type: "authorization_code", code: "x", client_id: CLIENT_ID } }, 400, "unsupported_grant_type"],
          [{ form: { grant_type: DEVICE_GRANT, client_id: CLIENT_ID } }, 400, "invalid_request"],
          [{ form: { grant_type: DEVICE_GRANT, device_code: "x" } }, 400, "invalid_request"],
          [{ form: { grant_type: DEVICE_GRANT, device_code: "unknown", client_id: CLIENT_ID } }, 400, "invalid_grant"],
          [{ form: { grant_type: DEVICE_GRANT, device_code: "unknown", client_id: "nope" } }, 401, "invalid_client"],
          [{ form: { grant_type: "refresh_token", client_id: CLIENT_ID } }, 400, "invalid_request"],
          [{ form: { grant_type: "refresh_token", refresh_token: "tampered", client_id: CLIENT_ID } }, 400, "invalid_grant"],
          [{ json: { grant_type: "refresh_token", refresh_token: { nested: true }, client_id: CLIENT_ID } }, 400, "invalid_request"],
          [{ json: null }, 400, "invalid_request"],
          [{ body: "%%%", headers: { "content-type": "application/x-www-form-urlencoded" } }, 400, "invalid_request"],
          [{ body: "\u0000\u0001", headers: { "content-type": "application/octet-stream" } }, 400, "invalid_request"],
          [{ json: { grant_type: DEVICE_GRANT, device_code: "a\u0000b", client_id: CLIENT_ID } }, 400, "invalid_grant"],
          [{ json: { grant_type: "refresh_token", refresh_token: "\u0000", client_id: CLIENT_ID } }, 400, "invalid_grant"],
          [{ json: { grant_type: "refresh\u0000", client_id: CLIENT_ID } }, 400, "unsupported_grant_type"]
        ]
        for (const path of ["/oauth/device/token", "/oauth/token"]) {
          for (const [init, status, error] of cases) {
            const answer = yield* send(path, init)
            expect([path, answer.status, answer.body]).toEqual([path, status, oauthError(error)])
            expectNoStore(answer)
          }
        }
      }))
  })

  describe("POST /oauth/device/authorize and /oauth/device/deny", () => {
    it.effect("need a signed-in session: 401 invalid_token without one", () =>
      Effect.gen(function*() {
        const { body: code } = yield* requestCode()
        for (const path of ["/oauth/device/authorize", "/oauth/device/deny"]) {
          const anonymous = yield* send(path, { json: { user_code: code.user_code } })
          expect([anonymous.status, anonymous.body]).toEqual([401, oauthError("invalid_token")])
          expect(anonymous.headers.get("www-authenticate")).toBe(`Bearer error="invalid_token"`)
          const stale = yield* send(path, { token: "not-a-session", json: { user_code: code.user_code } })
          expect(stale.status).toBe(401)
        }
        expect((yield* deviceRow(code.device_code)).status).toBe("pending")
      }))

    it.effect("with the session cookie: same-site posts pass, cross-site ones are refused", () =>
      Effect.gen(function*() {
        const user = yield* newUser("cookie")
        const { body: code } = yield* requestCode()
        const crossSite = yield* send("/oauth/device/authorize", {
          cookie: user.token,
          form: { user_code: code.user_code },
          headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" }
        })
        expect([crossSite.status, crossSite.body]).toEqual([403, oauthError("invalid_request", "Cross-site request refused")])
        const foreignOrigin = yield* send("/oauth/device/authorize", {
          cookie: user.token,
          form: { user_code: code.user_code },
          headers: { origin: "https://evil.example" }
        })
        expect(foreignOrigin.status).toBe(403)
        expect((yield* deviceRow(code.device_code)).status).toBe("pending")
        const sameOrigin = yield* send("/oauth/device/authorize", {
          cookie: user.token,
          form: { user_code: code.user_code },
          headers: { origin: "http://iam.test", "sec-fetch-site": "same-origin" }
        })
        expect([sameOrigin.status, sameOrigin.body]).toEqual([200, { ok: true }])
        expect((yield* deviceRow(code.device_code)).status).toBe("approved")
      }))

    it.effect("unknown, used and empty codes answer their OAuth errors", () =>
      Effect.gen(function*() {
        const user = yield* newUser("codes")
        const { body: code } = yield* requestCode()
        const approve = (userCode: unknown) => send("/oauth/device/authorize", { token: user.token, json: { user_code: userCode } })
        expect((yield* approve("")).body).toEqual(oauthError("invalid_request"))
        expect((yield* approve(7)).body).toEqual(oauthError("invalid_request"))
        expect((yield* send("/oauth/device/authorize", { token: user.token, json: {} })).body).toEqual(oauthError("invalid_request"))
        expect((yield* approve("ZZZZ-ZZZZ")).body).toEqual(oauthError("invalid_grant", "Unknown code"))
        expect((yield* approve("BCDF\u0000GHJK")).body).toEqual(oauthError("invalid_grant", "Unknown code"))
        expect((yield* approve(code.user_code)).status).toBe(200)
        const used = yield* approve(code.user_code)
        expect([used.status, used.body]).toEqual([400, oauthError("invalid_grant", "The code was already used")])
      }))
  })

  describe("GET /.well-known/oauth-authorization-server", () => {
    it.effect("publishes the endpoints at the address the request came to, with the gateway prefix", () =>
      Effect.gen(function*() {
        const metadata = (base: string) => ({
          issuer: base,
          token_endpoint: `${base}/oauth/token`,
          device_authorization_endpoint: `${base}/oauth/device/code`,
          grant_types_supported: [DEVICE_GRANT, "refresh_token"],
          response_types_supported: [],
          token_endpoint_auth_methods_supported: ["none"]
        })
        const direct = yield* send("/.well-known/oauth-authorization-server")
        expect([direct.status, direct.body]).toEqual([200, metadata("http://iam.test")])
        expectNoStore(direct)
        const viaGateway = yield* send("/.well-known/oauth-authorization-server", { headers: { "x-forwarded-prefix": "/api/v1/iam" } })
        expect(viaGateway.body).toEqual(metadata("http://iam.test/api/v1/iam"))
        const inserted = yield* send("/.well-known/oauth-authorization-server/api/v1/iam")
        expect(inserted.body).toEqual(metadata("http://iam.test/api/v1/iam"))
      }))
  })
})

describe("with CORE_PUBLIC_URL", () => {
  const it = useHarness({ env: { CORE_PUBLIC_URL: "https://core.example.com", CORE_TRUST_PROXY: "1" } })

  it.effect("the public address wins over the request's, and keeps the gateway prefix", () =>
    Effect.gen(function*() {
      const code = yield* requestCode({ form: { client_id: CLIENT_ID }, headers: { "x-forwarded-prefix": "/api/v1/iam", "x-forwarded-host": "evil.example" } })
      expect(code.body.verification_uri).toBe("https://core.example.com/api/v1/iam/device")
      const metadata = yield* send("/.well-known/oauth-authorization-server", { headers: { "x-forwarded-prefix": "/api/v1/iam" } })
      expect(metadata.body.token_endpoint).toBe("https://core.example.com/api/v1/iam/oauth/token")
    }))
})

describe("behind a trusted proxy", () => {
  const it = useHarness({ env: { CORE_TRUST_PROXY: "1" } })

  it.effect("the forwarded host and scheme make the addresses", () =>
    Effect.gen(function*() {
      const code = yield* requestCode({
        form: { client_id: CLIENT_ID },
        headers: { "x-forwarded-host": "login.example.org", "x-forwarded-proto": "https", "x-forwarded-prefix": "/api/v1/iam" }
      })
      expect(code.body.verification_uri).toBe("https://login.example.org/api/v1/iam/device")
    }))
})

describe("with CORE_PUBLIC_URL naming this process's own port (the gateway's, in the multi-process deployment)", () => {
  const it = useHarness({ env: { CORE_PUBLIC_URL: "http://localhost:18700", PORT: "18700" } })

  it.effect("is still the public address: the issuer and verification_uri name it, not the request's host", () =>
    Effect.gen(function*() {
      const code = yield* requestCode({ form: { client_id: CLIENT_ID }, headers: { "x-forwarded-prefix": "/api/v1/iam" } })
      expect(code.body.verification_uri).toBe("http://localhost:18700/api/v1/iam/device")
      expect(code.body.verification_uri_complete).toBe(`http://localhost:18700/api/v1/iam/device?user_code=${code.body.user_code}`)
      const metadata = yield* send("/.well-known/oauth-authorization-server", { headers: { "x-forwarded-prefix": "/api/v1/iam" } })
      expect(metadata.body.issuer).toBe("http://localhost:18700/api/v1/iam")
      const inserted = yield* send("/.well-known/oauth-authorization-server/api/v1/iam")
      expect(inserted.body.issuer).toBe("http://localhost:18700/api/v1/iam")
    }))
})

describe("without CORE_PUBLIC_URL and without trusted proxies", () => {
  const it = useHarness({ env: { PORT: "18701" } })

  it.effect("the request's own Host makes the addresses; X-Forwarded-Host and -Proto are ignored, and the default port never shows", () =>
    Effect.gen(function*() {
      const code = yield* requestCode({
        form: { client_id: CLIENT_ID },
        headers: { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https", "x-forwarded-prefix": "/api/v1/iam" }
      })
      expect(code.body.verification_uri).toBe("http://iam.test/api/v1/iam/device")
      const metadata = yield* send("/.well-known/oauth-authorization-server", { headers: { "x-forwarded-host": "evil.example" } })
      expect(metadata.body.issuer).toBe("http://iam.test")
      expect(JSON.stringify(metadata.body)).not.toContain("18701")
    }))
})
