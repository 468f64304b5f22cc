import { Stacks } from "@core/contracts"
import { createClient } from "@core/sdk"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { core, tempHome, writeLogin } from "../packages/cli/test/login-support.js"
import { launch, migratedDataDir, ready, type Running } from "../packages/server/test/ServerProcess.js"
import { type Tenant, tenantOf } from "./support/tenants.js"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * The stack catalogue as a caller meets it: behind the gateway of the real all-in-one server
 * (`core-server start`, the gateway signs the caller for the catalogue), then alone
 * (`core-server serve --service stacks`) behind a gateway in another process on
 * `CORE_UPSTREAM_STACKS_URL`. Every authenticated caller reads; the static key writes; a member
 * and an API key get 403 on every write.
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY
const SECRET = "e2e-secret-e2e-secret-e2e-secret-0123456789"
const SERVICE = { authorization: `Bearer ${STATIC_KEY}` }


const call = (base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

const codeOf = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code

const definition = { resources: [{ type: "sql_db", name: "main", environment: "prod", config: {} }] }

/** The catalogue's whole round trip through a gateway at `base`, as the static key and a member. */
const roundTrip = async (base: string, member: Tenant, name: string) => {
  const bearer = { authorization: `Bearer ${member.token}` }
  const created = await call(base, "POST", "/api/v1/stacks", SERVICE, { name, displayName: "Web app", description: "Pages and a database" })
  expect(created.status).toBe(201)
  for (const version of ["1.0.0", "1.2.0", "2.0.0-beta.1"]) {
    const published = await call(base, "POST", `/api/v1/stacks/${name}/versions`, SERVICE, { version, stackDefinition: definition, coreSdkVersion: "0.1.0" })
    expect(published.status, version).toBe(201)
  }
  const again = await call(base, "POST", `/api/v1/stacks/${name}/versions`, SERVICE, { version: "1.2.0", stackDefinition: definition, coreSdkVersion: "0.1.0" })
  expect([again.status, await codeOf(again)]).toEqual([409, "CONFLICT"])
  const unknown = await call(base, "POST", "/api/v1/stacks/no-such/versions", SERVICE, { version: "1.0.0", stackDefinition: definition, coreSdkVersion: "0.1.0" })
  expect([unknown.status, await codeOf(unknown)]).toEqual([404, "NOT_FOUND"])
  const bad = await call(base, "POST", `/api/v1/stacks/${name}/versions`, SERVICE, { version: "v1.3.0", stackDefinition: definition, coreSdkVersion: "0.1.0" })
  expect([bad.status, await codeOf(bad)]).toEqual([400, "VALIDATION_ERROR"])

  // The member reads the whole catalogue.
  const detail = Stacks.StackTemplateDetail.parse(await (await call(base, "GET", `/api/v1/stacks/${name}`, bearer)).json())
  expect([detail.template.latest_version, detail.latestVersion?.version]).toEqual(["1.2.0", "1.2.0"])
  const list = Stacks.StackTemplateList.parse(await (await call(base, "GET", "/api/v1/stacks", { cookie: `core.session_token=${member.token}` })).json())
  expect(list.data.map((template) => template.name)).toContain(name)
  const versions = Stacks.StackVersionList.parse(await (await call(base, "GET", `/api/v1/stacks/${name}/versions`, bearer)).json())
  expect(versions.data.map((version) => version.version)).toEqual(["2.0.0-beta.1", "1.2.0", "1.0.0"])
  expect((await call(base, "GET", `/api/v1/stacks/${name}/1.0.0`, bearer)).status).toBe(200)

  // A member and its API key cannot write; nor can anyone without credentials.
  const key = await member.client.iam.apiKeys.create({ organizationId: member.orgId, name: "all", permissions: ["*"] })
  for (const headers of [bearer, { "x-api-key": key.key }]) {
    const writes = [
      call(base, "POST", "/api/v1/stacks", headers, { name: `${name}-mine`, displayName: "Mine", description: "Mine" }),
      call(base, "PATCH", `/api/v1/stacks/${name}`, headers, { status: "deprecated" }),
      call(base, "POST", `/api/v1/stacks/${name}/versions`, headers, { version: "9.0.0", stackDefinition: definition, coreSdkVersion: "0.1.0" }),
      call(base, "DELETE", `/api/v1/stacks/${name}/1.2.0`, headers)
    ]
    for (const response of await Promise.all(writes)) expect([response.status, await codeOf(response)]).toEqual([403, "FORBIDDEN"])
  }
  expect((await call(base, "GET", "/api/v1/stacks", {})).status).toBe(401)

  // DELETE deprecates; the latest version moves down; template deprecation hides it from the list.
  expect(await (await call(base, "DELETE", `/api/v1/stacks/${name}/1.2.0`, SERVICE)).json()).toEqual({ ok: true })
  expect(Stacks.StackTemplateDetail.parse(await (await call(base, "GET", `/api/v1/stacks/${name}`, bearer)).json()).template.latest_version).toBe("1.0.0")
  expect(await (await call(base, "PATCH", `/api/v1/stacks/${name}`, SERVICE, { status: "deprecated" })).json()).toEqual({ ok: true })
  const after = Stacks.StackTemplateList.parse(await (await call(base, "GET", "/api/v1/stacks", bearer)).json())
  expect(after.data.map((template) => template.name)).not.toContain(name)
}

describe("the stack catalogue through the all-in-one server's gateway", () => {
  const server = useSharedServer(SLOW)
  let ada: Tenant

  beforeAll(async () => {
    ada = await tenantOf(server.base, "Ada", "ada-stacks")
  }, SLOW)

  it("publishes, reads, deprecates; members read and never write", async () => {
    await roundTrip(server.base, ada, "web-app")
  }, SLOW)

  it("is client.stacks in the SDK: typed calls over the catalogued routes, errors as CoreApiError", async () => {
    const operator = createClient({ baseUrl: server.base, token: STATIC_KEY })
    expect(await operator.stacks.create({ name: "sdk-app", displayName: "SDK app", description: "Made by the SDK" })).toMatchObject({ id: expect.stringMatching(/^stk_/) })
    await operator.stacks.versions.publish("sdk-app", { version: "0.2.0", stackDefinition: definition, coreSdkVersion: "0.1.0" })
    await operator.stacks.versions.publish("sdk-app", { version: "0.10.0", stackDefinition: definition, coreSdkVersion: "0.1.0" })
    expect(await operator.stacks.update("sdk-app", { description: "Changed" })).toEqual({ ok: true })

    const detail = await ada.client.stacks.get("sdk-app")
    expect([detail.template.latest_version, detail.template.description]).toEqual(["0.10.0", "Changed"])
    expect((await ada.client.stacks.list()).data.map((template) => template.name)).toContain("sdk-app")
    expect((await ada.client.stacks.versions.list("sdk-app")).data.map((version) => version.version)).toEqual(["0.10.0", "0.2.0"])
    expect(JSON.parse((await ada.client.stacks.versions.get("sdk-app", "0.2.0")).stack_definition)).toEqual(definition)

    await expect(ada.client.stacks.versions.deprecate("sdk-app", "0.10.0")).rejects.toMatchObject({ status: 403, code: "FORBIDDEN" })
    await expect(operator.stacks.versions.publish("sdk-app", { version: "0.2.0", stackDefinition: definition, coreSdkVersion: "0.1.0" }))
      .rejects.toMatchObject({ status: 409, code: "CONFLICT" })
    expect(await operator.stacks.versions.deprecate("sdk-app", "0.10.0")).toEqual({ ok: true })
    expect((await ada.client.stacks.get("sdk-app")).latestVersion?.version).toBe("0.2.0")
  }, SLOW)

  it("is core stacks in the CLI: create, publish a definition file, list, show, deprecate, with --json; a member cannot write", async () => {
    const operator = tempHome()
    const member = tempHome()
    try {
      const env = { CORE_API_URL: server.base }
      // The static key is no identity token, so `core login --token` refuses it: its credential file is written as login would.
      writeLogin(operator, server.base, STATIC_KEY, null, "operator")
      expect((await core(member, ["login", "--token", ada.token], env)).code).toBe(0)
      const file = join(operator.home, "stack.json")
      writeFileSync(file, JSON.stringify(definition))

      expect(await core(operator, ["stacks", "create", "cli-app", "--display-name", "CLI app", "--description", "From the CLI"], env))
        .toMatchObject({ code: 0, stdout: expect.stringMatching(/^Created stack template cli-app \(stk_\w+\)\.\n$/), stderr: "" })
      for (const version of ["1.0.0", "1.1.0"]) {
        expect(await core(operator, ["stacks", "publish", "cli-app", version, "--file", file, "--sdk", "0.1.0"], env))
          .toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^Published cli-app ${version} \\(ver_\\w+\\)\\.\\n$`)) })
      }
      const listed = await core(member, ["stacks", "list"], env)
      expect(listed.code).toBe(0)
      expect(listed.stdout).toMatch(/^NAME\s+DISPLAY NAME\s+LATEST\s+DOMAIN\n/)
      expect(listed.stdout).toMatch(/\ncli-app\s+CLI app\s+1\.1\.0\s+-\n/)
      const shown = JSON.parse((await core(member, ["stacks", "show", "cli-app", "--json"], env)).stdout)
      expect([shown.template.latest_version, shown.versions.map((v: { version: string }) => v.version)]).toEqual(["1.1.0", ["1.1.0", "1.0.0"]])
      expect((await core(member, ["stacks", "show", "cli-app"], env)).stdout).toMatch(/^CLI app \(cli-app\)\n[\s\S]*VERSION\s+STATUS\s+SDK\s+PUBLISHED\n1\.1\.0\s+published\s+0\.1\.0\s+\d{4}-/)

      const refused = await core(member, ["stacks", "deprecate", "cli-app", "1.1.0", "--yes"], env)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain("FORBIDDEN")
      const bad = await core(operator, ["stacks", "publish", "cli-app", "v2.0.0", "--file", file, "--sdk", "0.1.0"], env)
      expect([bad.code, bad.stderr.includes("version")]).toEqual([1, true])
      expect((await core(operator, ["stacks", "deprecate", "cli-app", "1.1.0"], env)).code).toBe(2) // no --yes without a terminal
      expect(await core(operator, ["stacks", "deprecate", "cli-app", "1.1.0", "--yes", "--json"], env))
        .toMatchObject({ code: 0, stdout: `${JSON.stringify({ name: "cli-app", version: "1.1.0", status: "deprecated" }, null, 2)}\n` })
      expect(JSON.parse((await core(member, ["stacks", "show", "cli-app", "--json"], env)).stdout).template.latest_version).toBe("1.0.0")
      expect((await core(operator, ["stacks", "deprecate", "cli-app", "--yes"], env)).stdout).toBe("Deprecated the stack template cli-app: it is no longer listed.\n")
      expect(JSON.parse((await core(member, ["stacks", "list", "--json"], env)).stdout).map((t: { name: string }) => t.name)).not.toContain("cli-app")
    } finally {
      operator.remove()
      member.remove()
    }
  }, SLOW)

  it("answers a path no route matches (a name over the router's limit, broken encoding, a lone surrogate) 404 in the envelope", async () => {
    const bearer = { authorization: `Bearer ${ada.token}` }
    for (const path of [`/api/v1/stacks/${"p".repeat(200)}`, "/api/v1/stacks/%E0%A4%A", "/api/v1/stacks/%ED%A0%80"]) {
      const response = await call(server.base, "GET", path, bearer)
      expect(response.status, path).toBe(404)
      expect(((await response.json()) as { error: unknown }).error).toMatchObject({ code: "NOT_FOUND", message: "Route not found", details: null })
    }
  }, SLOW)

  it("publishes the catalogue's routes in the gateway's OpenAPI document", async () => {
    const document = (await (await fetch(`${server.base}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> }
    expect(document.paths["/api/v1/stacks"].get.operationId).toBe("listStacks")
    expect(document.paths["/api/v1/stacks/{name}/versions"].post.operationId).toBe("createStackVersion")
    expect(document.paths["/api/v1/stacks/{name}/{version}"].delete.operationId).toBe("deprecateStackVersion")
  }, SLOW)
})

describe("the stack catalogue alone (serve --service stacks) behind a gateway in another process", () => {
  const work = mkdtempSync(join(tmpdir(), "core-e2e-stacks-"))
  let stacks: Running
  let gateway: Running
  let base = ""
  let stacksUrl = ""

  beforeAll(async () => {
    stacks = launch(["serve", "--service", "stacks", "--port", "0"], { CORE_DATA_DIR: await migratedDataDir(join(work, "stacks")), CORE_SECRET: SECRET })
    stacksUrl = await ready(stacks)
    gateway = launch(["start"], {
      PORT: "0",
      CORE_DATA_DIR: await migratedDataDir(join(work, "gateway")),
      CORE_SECRET: SECRET,
      CORE_STATIC_API_KEY: STATIC_KEY,
      CORE_UPSTREAM_STACKS_URL: stacksUrl
    })
    base = await ready(gateway)
  }, SLOW)

  afterAll(() => {
    stacks?.child.kill("SIGKILL")
    gateway?.child.kill("SIGKILL")
    rmSync(work, { recursive: true, force: true })
  })

  it("serves the callers the gateway signed over HTTP, and nobody who calls it directly", async () => {
    const carol = await tenantOf(base, "Carol", "carol-stacks")
    await roundTrip(base, carol, "remote-app")
    const direct = await call(stacksUrl, "GET", "/", { ...SERVICE, "x-core-role": "service" })
    expect(direct.status).toBe(401)
    // The catalogue's rows live in the stacks process's database, not the gateway's.
    const created = await call(base, "POST", "/api/v1/stacks", SERVICE, { name: "remote-two", displayName: "Two", description: "Two" })
    expect(created.status).toBe(201)
  }, SLOW)
})
