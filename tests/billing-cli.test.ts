import { createClient } from "@core/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { builtCli } from "../packages/cli/test/built-cli.js"
import { core, tempHome, writeLogin } from "../packages/cli/test/login-support.js"
import { useSharedServer } from "./support/sharedServer.js"

/**
 * `core billing status|plans|invoices|upgrade` with the real built binary against the all-in-one
 * server: a tenant's free platform, upgraded with a test card; a declined card exits non-zero with
 * the server's message; `--json` prints the records.
 */
const SLOW = 240_000
let bin = ""

beforeAll(async () => {
  bin = (await builtCli()).bundle
}, SLOW)

describe("core billing (built binary) against the all-in-one server", () => {
  const server = useSharedServer(SLOW)
  const home = tempHome()
  afterAll(() => home.remove())

  it("shows the plans and the subscription, upgrades with a test card, lists the invoice", async () => {
    const { token } = await createClient({ baseUrl: server.base }).iam.signUp({ name: "Dee", email: "dee-billing@example.com", password: "correct horse battery" })
    const setup = await fetch(`${server.base}/api/v1/iam/api/core/org-setup`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `core.session_token=${token}` },
      body: JSON.stringify({ name: "Dee", slug: "dee-billing" })
    })
    const { orgId, platformId } = (await setup.json()) as { orgId: string; platformId: string }
    await createClient({ baseUrl: server.base, token }).iam.organizations.setActive({ organizationId: orgId })
    writeLogin(home, server.base, token, platformId, "owner")
    const run = (args: ReadonlyArray<string>) => core(home, args, { CORE_API_URL: server.base }, bin)

    const plans = await run(["billing", "plans", "--json"])
    expect(plans.code, plans.stderr).toBe(0)
    expect(JSON.parse(plans.stdout).map((plan: { id: string }) => plan.id)).toEqual(["free", "starter", "growth", "scale"])
    const table = await run(["billing", "plans"])
    expect(table.stdout).toContain("$29.00/month")

    const status = await run(["billing", "status"])
    expect(status.code, status.stderr).toBe(0)
    expect(status.stdout).toContain(`Platform ${platformId}: free ($0.00/month), active`)

    const declined = await run(["billing", "upgrade", "starter", "--payment-method", "4000000000000002", "--email", "dee@example.com"])
    expect(declined.code).not.toBe(0)
    expect(declined.stderr).toContain("Your card was declined.")

    const key = "0b7f8a0e-5c3e-4d8e-9a7b-000000000001"
    const upgraded = await run(["billing", "upgrade", "starter", "--payment-method", "pm_card_visa", "--email", "dee@example.com", "--idempotency-key", key, "--json"])
    expect(upgraded.code, upgraded.stderr).toBe(0)
    const result = JSON.parse(upgraded.stdout)
    expect(result.subscription).toMatchObject({ tier: "starter", status: "active" })
    const again = await run(["billing", "upgrade", "starter", "--payment-method", "pm_card_visa", "--email", "dee@example.com", "--idempotency-key", key, "--json"])
    expect(JSON.parse(again.stdout)).toEqual(result)

    const invoices = await run(["billing", "invoices"])
    expect(invoices.code, invoices.stderr).toBe(0)
    expect(invoices.stdout).toContain(result.invoice.id)
    expect(invoices.stdout).toContain("$29.00")
    const usage = await run(["billing", "upgrade", "gold", "--payment-method", "pm_card_visa", "--email", "dee@example.com"])
    expect(usage.code).toBe(2)
  }, SLOW)
})
