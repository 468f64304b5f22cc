import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { environment, root } from "../packages/server/test/ServerProcess.js"
import { runsOncePerCi } from "./support/once.js"

/**
 * examples/express-host: Core's identity, registry and billing inside an Express 5 app, behind the
 * host's own authentication. The app runs in its own process (express 5's router does not load
 * under vitest's `--conditions import`), as `npm start` would run it, on PGlite: once per CI run.
 */
const SLOW = 180_000

interface Signed { readonly token: string; readonly orgId: string; readonly platformId: string }

describe.runIf(runsOncePerCi)("examples/express-host: identity, registry and billing under an Express app's own routes and auth", () => {
  const work = mkdtempSync(join(tmpdir(), "express-host-"))
  let child: ChildProcess
  let base = ""

  const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) as any }
  }

  /** Sign up through /auth, set up an organization (so a platform), make it active. */
  const signUp = async (name: string, slug: string): Promise<Signed> => {
    const { body: { token } } = await call("POST", "/auth/api/auth/sign-up/email", {}, { name, email: `${slug}@example.com`, password: "correct horse battery" })
    const setup = await call("POST", "/auth/api/core/org-setup", { cookie: `core.session_token=${token}` }, { name, slug })
    expect(setup.status).toBe(201)
    const active = await call("POST", "/auth/api/auth/organization/set-active", { authorization: `Bearer ${token}` }, { organizationId: setup.body.orgId })
    expect(active.status).toBe(200)
    return { token, orgId: setup.body.orgId, platformId: setup.body.platformId }
  }

  beforeAll(async () => {
    child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "examples/express-host/src/main.ts"], {
      cwd: root,
      env: environment({ PORT: "0", CORE_DATA_DIR: join(work, "data"), CORE_SECRET: "express-host-secret-0123456789abcdef" }),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    base = await new Promise<string>((resolve, reject) => {
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk
        const found = /Express host on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
        if (found !== null) resolve(found[1]!)
      })
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
      child.once("exit", () => reject(new Error(`express host exited:\n${output}`)))
    })
  }, SLOW)

  afterAll(async () => {
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      await exited
    }
    rmSync(work, { recursive: true, force: true })
  }, SLOW)

  it("serves identity under /auth, and the registry and billing to the users the host signs in", async () => {
    expect((await fetch(`${base}/`)).status).toBe(200)
    const ada = await signUp("Ada", "ada-express")
    const bearer = { authorization: `Bearer ${ada.token}` }

    const platform = await call("GET", `/registry/api/v1/platforms/${ada.platformId}`, bearer)
    expect(platform.status).toBe(200)
    expect(platform.body).toMatchObject({ id: ada.platformId, slug: "ada-express", status: "active" })

    const plans = await call("GET", "/billing/plans", bearer)
    expect(plans.status).toBe(200)
    const subscription = await call("GET", `/billing/api/billing/subscription?platformId=${ada.platformId}`, bearer)
    // Billing makes the free subscription as the platform is created (decision 0446), in the host too.
    expect(subscription).toMatchObject({ status: 200, body: { platformId: ada.platformId, tier: "free", status: "active" } })

    const me = await call("GET", "/me", bearer)
    expect(me).toMatchObject({ status: 200, body: { email: "ada-express@example.com", platform: { slug: "ada-express", status: "active" } } })
  }, SLOW)

  it("keeps its own authentication in front of the registry and billing: no session, a bad one, or forged identity headers get the host's 401", async () => {
    const ada = await signUp("Bea", "bea-express")
    const refused = { status: 401, body: { error: "unauthorized", message: "Sign in at /auth first" } }
    expect(await call("GET", `/registry/api/v1/platforms/${ada.platformId}`)).toEqual(refused)
    expect(await call("GET", "/billing/api/billing/subscription", { authorization: "Bearer not-a-session" })).toEqual(refused)
    expect(await call("GET", `/registry/api/v1/platforms/${ada.platformId}`, { "x-core-user-id": "usr_forged", "x-core-role": "operator", "x-core-platform-id": ada.platformId })).toEqual(refused)
    expect(await call("GET", "/me")).toEqual(refused)
  }, SLOW)

  it("keeps tenants apart: one user cannot read another organization's platform", async () => {
    const cy = await signUp("Cy", "cy-express")
    const dee = await signUp("Dee", "dee-express")
    const other = await call("GET", `/registry/api/v1/platforms/${dee.platformId}`, { authorization: `Bearer ${cy.token}` })
    expect(other.status).toBe(404)
    expect(other.body.error.code).toBe("NOT_FOUND")
    const bill = await call("GET", `/billing/api/billing/subscription?platformId=${dee.platformId}`, { authorization: `Bearer ${cy.token}` })
    expect([bill.status, bill.body.error.code]).toEqual([404, "NOT_FOUND"])
  }, SLOW)
})
