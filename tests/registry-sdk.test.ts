import { ForbiddenError, NotFoundError, createClient } from "@core/sdk"
import { describe, expect, it } from "vitest"
import { useServer } from "../packages/server/test/ServerProcess.js"

/**
 * `client.registry.platforms` against the real all-in-one server, through its gateway: the static
 * key creates platforms, `all()` walks every page of the registry's nested `pagination` cursor,
 * and the lifecycle methods move a platform through its states.
 */
const SLOW = 180_000
const STATIC_KEY = "sdk-static-key-0123456789abcdef"

describe("client.registry.platforms through the gateway", () => {
  const server = useServer({ CORE_STATIC_API_KEY: STATIC_KEY }, SLOW)

  it("creates, reads, pages over every platform, and runs the lifecycle", async () => {
    const core = createClient({ baseUrl: server.base, token: STATIC_KEY })
    const slugs = ["sdk-a", "sdk-b", "sdk-c"]
    const created = []
    for (const slug of slugs) created.push(await core.registry.platforms.create({ name: slug.toUpperCase(), slug, tier: "growth" }))
    expect(created.map((p) => [p.slug, p.status, p.tier])).toEqual(slugs.map((slug) => [slug, "active", "growth"]))

    const one = await core.registry.platforms.get(created[0]!.id)
    expect(one).toMatchObject({ id: created[0]!.id, name: "SDK-A", slug: "sdk-a" })

    const firstPage = await core.registry.platforms.list({ limit: 1, tier: "growth" })
    expect(firstPage.data).toHaveLength(1)
    expect(firstPage.pagination.hasMore).toBe(true)

    const seen: Array<string> = []
    for await (const platform of core.registry.platforms.all({ limit: 1, tier: "growth" })) seen.push(platform.slug)
    expect(seen.sort()).toEqual(slugs)

    const id = created[1]!.id
    expect((await core.registry.platforms.suspend(id, { reason: "unpaid" })).status).toBe("suspended")
    expect((await core.registry.platforms.restore(id)).status).toBe("active")
    expect((await core.registry.platforms.cancel(id, { reason: "leaving" })).status).toBe("cancelled")
    expect((await core.registry.platforms.hardDelete(id)).status).toBe("deleted")

    await expect(core.registry.platforms.get("plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS")).rejects.toBeInstanceOf(NotFoundError)
  }, SLOW)

  it("pages a tenant over its own platform only; another's answers NotFoundError, a write ForbiddenError", async () => {
    const core = createClient({ baseUrl: server.base, token: STATIC_KEY })
    const others = await core.registry.platforms.create({ name: "Elsewhere", slug: "sdk-elsewhere" })
    const { token } = await createClient({ baseUrl: server.base }).iam.signUp({ name: "Ada", email: "ada-sdk@example.com", password: "correct horse battery" })
    const setup = await fetch(`${server.base}/api/v1/iam/api/core/org-setup`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `core.session_token=${token}` },
      body: JSON.stringify({ name: "Ada", slug: "ada-sdk" })
    })
    expect(setup.status).toBe(201)
    const { orgId, platformId } = (await setup.json()) as { orgId: string; platformId: string }
    const ada = createClient({ baseUrl: server.base, token })
    await ada.iam.organizations.setActive({ organizationId: orgId })

    const seen: Array<string> = []
    for await (const platform of ada.registry.platforms.all({ limit: 1 })) seen.push(platform.id)
    expect(seen).toEqual([platformId])
    await expect(ada.registry.platforms.get(others.id)).rejects.toBeInstanceOf(NotFoundError)
    await expect(ada.registry.platforms.suspend(platformId)).rejects.toBeInstanceOf(ForbiddenError)
    expect((await ada.registry.platforms.get(platformId)).status).toBe("active")
  }, SLOW)
})
