import { CoreConfig } from "@core/kernel"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { AuthUrls, IdentityMount } from "../src/accounts/AuthUrls.js"

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
    expect(urls.link("/api/auth/reset-password/t", { callbackURL: urls.page("/reset-password") }))
      .toBe("https://host.example/api/v1/iam/api/auth/reset-password/t?callbackURL=%2Freset-password")
  })

  it("mounted by a host (`IdentityMount.at`): the API and the pages under the mount, however the path is written", async () => {
    for (const path of ["/identity", "identity/", "/identity/"]) {
      const urls = await urlsWith(IdentityMount.at(path))
      expect(urls.link("/api/auth/verify-email", { token: "t" })).toBe("https://host.example/identity/api/auth/verify-email?token=t")
      expect(urls.page("/reset-password")).toBe("/identity/reset-password")
      expect((await Effect.runPromise(urls.redirectTarget(urls.page("/reset-password"), "callbackURL"))).toString())
        .toBe("https://host.example/identity/reset-password")
    }
    const root = await urlsWith(IdentityMount.at("/"))
    expect([root.base, root.page("/sign-in")]).toEqual(["https://host.example", "/sign-in"])
  })
})
