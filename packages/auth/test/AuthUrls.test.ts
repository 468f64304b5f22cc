import { HttpServerRequest } from "@effect/platform"
import { CoreConfig } from "@core/kernel"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { AuthUrls, IdentityMount, make } from "../src/accounts/AuthUrls.js"

/** Decision 0212: the links identity writes outside a request follow where it is mounted. */
const env = { NODE_ENV: "test", CORE_SECRET: "auth-urls-secret-0123456789-abcdef", CORE_PUBLIC_URL: "https://host.example/" }
const urlsWith = (mount?: Layer.Layer<IdentityMount>) =>
  Effect.runPromise(Effect.provide(
    AuthUrls,
    AuthUrls.Default.pipe(Layer.provide(CoreConfig.layer(env)), Layer.provide(mount ?? Layer.empty))
  ))

describe("AuthUrls and IdentityMount", () => {
  it("behind the gateway (no mount given): the API under /api/v1/iam, the pages at the root", async () => {
    const urls = await urlsWith()
    expect(await Effect.runPromise(urls.link("/api/auth/reset-password/t", { callbackURL: urls.page("/reset-password") })))
      .toBe("https://host.example/api/v1/iam/api/auth/reset-password/t?callbackURL=%2Freset-password")
  })

  it("mounted by a host (`IdentityMount.at`): the API and the pages under the mount, however the path is written", async () => {
    for (const path of ["/identity", "identity/", "/identity/"]) {
      const urls = await urlsWith(IdentityMount.at(path))
      expect(await Effect.runPromise(urls.link("/api/auth/verify-email", { token: "t" }))).toBe("https://host.example/identity/api/auth/verify-email?token=t")
      expect(urls.page("/reset-password")).toBe("/identity/reset-password")
      expect((await Effect.runPromise(urls.redirectTarget(urls.page("/reset-password"), "callbackURL"))).toString())
        .toBe("https://host.example/identity/reset-password")
    }
    const root = await urlsWith(IdentityMount.at("/"))
    expect([root.base, root.page("/sign-in")]).toEqual(["https://host.example", "/sign-in"])
  })

  it("without CORE_PUBLIC_URL, links and redirects made during a request use its public origin, never the process's port", async () => {
    const urls = make({ publicUrl: "http://localhost:18794", publicUrlSet: false, trustProxy: true, trustedOrigins: ["https://core.example.com"] })
    const request = HttpServerRequest.fromWeb(new Request("http://127.0.0.1:18794/api/auth/request-password-reset", {
      headers: { host: "127.0.0.1:18794", "x-forwarded-host": "core.example.com", "x-forwarded-proto": "https" }
    }))
    const gateway = HttpServerRequest.fromWeb(new Request("http://127.0.0.1:18794/x", {
      headers: { host: "127.0.0.1:18794", "x-forwarded-host": "localhost:4000" }
    }))
    expect(await Effect.runPromise(Effect.provideService(urls.link("/x", {}), HttpServerRequest.HttpServerRequest, gateway)))
      .toBe("http://localhost:4000/api/v1/iam/x")
    // A Host the sender chose that is neither loopback nor trusted never starts a mailed link (host-header poisoning).
    const poisoned = HttpServerRequest.fromWeb(new Request("http://127.0.0.1:18794/x", { headers: { host: "evil.example.com" } }))
    expect(await Effect.runPromise(Effect.provideService(urls.link("/x", {}), HttpServerRequest.HttpServerRequest, poisoned)))
      .toBe("http://localhost:18794/api/v1/iam/x")
    const inRequest = <A, E>(effect: Effect.Effect<A, E>) =>
      Effect.runPromise(Effect.provideService(effect, HttpServerRequest.HttpServerRequest, request))
    expect(await inRequest(urls.link("/api/auth/verify-email", { token: "t" })))
      .toBe("https://core.example.com/api/v1/iam/api/auth/verify-email?token=t")
    expect((await inRequest(urls.redirectTarget("/done", "callbackURL"))).href).toBe("https://core.example.com/done")
    expect(await inRequest(Effect.flip(urls.redirectTarget("https://evil.example.com/", "callbackURL")))).toMatchObject({ code: "INVALID_CALLBACK_URL" })
    // Outside a request (a job), the configured default stands.
    expect(await Effect.runPromise(urls.link("/x", {}))).toBe("http://localhost:18794/api/v1/iam/x")
    // With CORE_PUBLIC_URL set, the request's origin changes nothing.
    const configured = make({ publicUrl: "https://public.example.com" })
    expect(await inRequest(configured.link("/x", {}))).toBe("https://public.example.com/api/v1/iam/x")
  })
})
