import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launch, migratedDataDir, ready, root, type Running } from "../packages/server/test/ServerProcess.js"
import { runsOncePerCi } from "./support/once.js"
import { type Tenant, tenantOf } from "./support/tenants.js"

/**
 * The gateway's OpenAPI document against what a real server answers: Redocly CLI's lint
 * finds no problem, and a recorded set of real exchanges — several routes of every service,
 * successes and errors, through the gateway of `core-server start` — matches the document: each
 * path and method is an operation, each status one of its responses, each body its schema, and
 * each request body the operation's (none where it declares none; left out only where optional).
 */
const SLOW = 180_000
const STATIC_KEY = "core_static_openapi_traffic_key"
const redocly = createRequire(import.meta.url).resolve("@redocly/cli/bin/cli.js")

type Json = any

/** One recorded exchange. */
interface Exchange {
  readonly method: string
  readonly path: string
  readonly requestBody?: unknown
  readonly status: number
  readonly contentType: string
  readonly body: string
}

let work: string
let server: Running
let base: string
let document: Json
let tenant: Tenant
const exchanges: Array<Exchange> = []

/** Send one request and record the exchange. A JSON `body` goes as JSON; `raw` as it is. */
const send = async (
  method: string,
  path: string,
  options: { readonly headers?: Record<string, string>; readonly body?: unknown } = {}
): Promise<Exchange> => {
  const response = await fetch(`${base}${path}`, {
    method,
    redirect: "manual",
    headers: { ...(options.body === undefined ? {} : { "content-type": "application/json" }), ...options.headers },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
  })
  const exchange: Exchange = {
    method,
    path,
    ...(options.body === undefined ? {} : { requestBody: options.body }),
    status: response.status,
    contentType: (response.headers.get("content-type") ?? "").split(";")[0]!.trim(),
    body: await response.text()
  }
  exchanges.push(exchange)
  return exchange
}

/** A path template as a whole-path pattern: each `{param}` one segment. */
const pattern = (template: string) => new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`)

/** The document's path template a real path falls under: a literal one first, then the fewest parameters. */
const templateOf = (path: string): string | undefined => {
  const pathname = path.split("?")[0]!
  const matching = Object.keys(document.paths).filter((template) => pattern(template).test(pathname))
  return matching.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))[0]
}

const pointer = (...parts: ReadonlyArray<string>) => parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")

/** The problems of one exchange against the document (none when it matches). */
const problemsOf = (ajv: Ajv2020, exchange: Exchange): Array<string> => {
  const where = `${exchange.method} ${exchange.path} → ${exchange.status}`
  const template = templateOf(exchange.path)
  if (template === undefined) return [`${where}: no path of the document`]
  const method = exchange.method.toLowerCase()
  const operation = document.paths[template][method]
  if (operation === undefined) return [`${where}: ${template} has no ${exchange.method}`]
  const problems: Array<string> = []
  const validate = (at: string, value: unknown, what: string) => {
    const check = ajv.getSchema(`https://core.test/openapi.json#${at}`)
    if (check === undefined) return problems.push(`${where}: no schema at ${at}`)
    if (check(value) !== true) problems.push(`${where}: the ${what} does not match: ${ajv.errorsText(check.errors)}`)
  }
  // A refused request's body is wrong on purpose; a success's must be one the document takes.
  if (exchange.status >= 400) {
    // nothing to check of the request
  } else if (exchange.requestBody === undefined) {
    if (operation.requestBody?.required === true) problems.push(`${where}: sent no body, but the document requires one`)
  } else if (operation.requestBody?.content?.["application/json"] === undefined) {
    problems.push(`${where}: sent a JSON body, but the document declares none`)
  } else {
    validate(`/${pointer("paths", template, method, "requestBody", "content", "application/json", "schema")}`, exchange.requestBody, "request body")
  }
  const status = String(exchange.status)
  const response = operation.responses[status]
  if (response === undefined) return [...problems, `${where}: the document declares ${Object.keys(operation.responses).join(", ")}`]
  const content: Record<string, Json> | undefined = response.content
  if (content === undefined) {
    if (exchange.body !== "" && exchange.status < 300) problems.push(`${where}: a body the document does not declare`)
    return problems
  }
  const type = Object.keys(content).find((declared) => declared.split(";")[0]!.trim() === exchange.contentType)
  if (type === undefined) return [...problems, `${where}: content type ${exchange.contentType}, declared ${Object.keys(content).join(", ")}`]
  if (type === "application/json") {
    validate(`/${pointer("paths", template, method, "responses", status, "content", type, "schema")}`, JSON.parse(exchange.body), "body")
  }
  return problems
}

// The document and the server are the same on either database: once per CI run.
describe.runIf(runsOncePerCi)("the OpenAPI document (/api/v1/openapi.json)", () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "core-openapi-"))
    server = launch(["start"], { PORT: "0", CORE_DATA_DIR: await migratedDataDir(join(work, "data")), CORE_STATIC_API_KEY: STATIC_KEY })
    base = await ready(server)
    tenant = await tenantOf(base, "Traffic", "openapi-traffic")
    const served = await send("GET", "/api/v1/openapi.json")
    expect([served.status, served.contentType]).toEqual([200, "application/json"])
    document = JSON.parse(served.body)
  }, SLOW)

  afterAll(() => {
    server?.child.kill("SIGKILL")
    rmSync(work, { recursive: true, force: true })
  })

  it("passes Redocly CLI's lint: the recommended rules, every operation described with its 4xx answers", async () => {
    const file = join(work, "openapi.json")
    writeFileSync(file, JSON.stringify(document))
    const lint = await promisify(execFile)(process.execPath, [redocly, "lint", file, "--format=json", "--max-problems=1000"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: work, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      maxBuffer: 64 * 1024 * 1024
    }).catch((error: { stdout: string; stderr: string }) => error)
    const report = JSON.parse(lint.stdout) as { totals: Record<string, number>; problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }> }
    expect(report.problems.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`)).toEqual([])
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 })
  }, 60_000)

  it("describes the real answers of every service: successes and errors, bodies and statuses", async () => {
    const bearer = tenant.bearer
    const operator = { authorization: `Bearer ${STATIC_KEY}` }
    const platformId = tenant.platformId
    // The gateway's own routes.
    await send("GET", "/health")
    expect((await send("GET", "/ready")).status).toBe(200)
    expect((await send("GET", "/metrics")).status).toBe(401)
    expect((await send("GET", "/metrics", { headers: operator })).status).toBe(200)
    // Identity: better-auth's shapes, Core's envelope, OAuth's form.
    expect((await send("POST", "/api/v1/iam/api/auth/sign-up/email", { body: { name: "Traffic", email: "openapi-traffic@example.com", password: "correct horse battery" } })).status).toBe(422)
    expect((await send("POST", "/api/v1/iam/api/auth/sign-in/email", { body: { email: "openapi-traffic@example.com", password: "wrong horse battery" } })).status).toBe(401)
    const signIn = await send("POST", "/api/v1/iam/api/auth/sign-in/email", { body: { email: "openapi-traffic@example.com", password: "correct horse battery" } })
    expect(signIn.status).toBe(200)
    await send("GET", "/api/v1/iam/api/auth/get-session", { headers: bearer })
    await send("GET", "/api/v1/iam/api/auth/get-session")
    await send("GET", "/api/v1/iam/api/auth/list-sessions", { headers: bearer })
    expect((await send("GET", "/api/v1/iam/api/auth/list-sessions")).status).toBe(401)
    // better-auth's signOut() posts {}: the document takes it, and the session ends.
    const second = { authorization: `Bearer ${JSON.parse(signIn.body).token as string}` }
    expect((await send("POST", "/api/v1/iam/api/auth/sign-out", { headers: second, body: {} })).status).toBe(200)
    expect(JSON.parse((await send("GET", "/api/v1/iam/api/auth/get-session", { headers: second })).body)).toBeNull()
    expect((await send("POST", "/api/v1/iam/api/core/apikeys", { headers: bearer, body: { name: "traffic", organizationId: tenant.orgId } })).status).toBe(201)
    await send("GET", "/api/v1/iam/api/core/apikeys", { headers: bearer })
    expect((await send("POST", "/api/v1/iam/api/core/apikeys", { headers: bearer, body: { organizationId: "" } })).status).toBe(400)
    await send("GET", "/api/v1/iam/api/core/roles", { headers: bearer })
    expect((await send("POST", "/api/v1/iam/oauth/device/code", { body: { client_id: "core-cli" } })).status).toBe(200)
    expect((await send("POST", "/api/v1/iam/oauth/device/token", { body: { grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: "nope", client_id: "core-cli" } })).status).toBe(400)
    await send("GET", "/api/v1/iam/.well-known/jwks.json")
    await send("GET", "/api/v1/iam/.well-known/oauth-authorization-server")
    await send("GET", "/api/v1/iam")
    // The registry: platforms, entities, onboarding.
    expect((await send("GET", `/api/v1/platforms/${platformId}`, { headers: bearer })).status).toBe(200)
    expect((await send("GET", "/api/v1/platforms/plt_0000000000000000000000000", { headers: bearer })).status).toBe(404)
    expect((await send("GET", `/api/v1/platforms/${platformId}`)).status).toBe(401)
    await send("GET", `/api/v1/platforms/${platformId}/entities`, { headers: bearer })
    expect((await send("POST", `/api/v1/platforms/${platformId}/entities`, { headers: bearer, body: { name: 7 } })).status).toBe(400)
    expect((await send("GET", "/api/v1/onboarding/onb_0000000000000000000000000", { headers: operator })).status).toBe(404)
    // The stack catalogue.
    expect((await send("GET", "/api/v1/stacks", { headers: bearer })).status).toBe(200)
    expect((await send("GET", "/api/v1/stacks/no-such-stack", { headers: bearer })).status).toBe(404)
    // Provisioning, at the paths the SDK calls.
    expect((await send("GET", `/api/v1/provisioning/api/v1/provision/jobs?platformId=${platformId}`, { headers: bearer })).status).toBe(200)
    expect((await send("GET", "/api/v1/provisioning/api/v1/provision/jobs/job_0000000000000000000000000", { headers: bearer })).status).toBe(404)
    expect((await send("GET", "/api/v1/provisioning/api/v1/provision/dlq", { headers: bearer })).status).toBe(403)
    // Billing.
    expect((await send("GET", "/api/v1/billing/plans")).status).toBe(200)
    expect((await send("GET", `/api/v1/billing/api/billing/subscription?platformId=${platformId}`, { headers: bearer })).status).toBe(200)
    expect((await send("GET", `/api/v1/billing/api/billing/invoices/inv_0000000000000000000000000?platformId=${platformId}`, { headers: bearer })).status).toBe(404)
    // The command-line backend: a bodiless deploy is documented and accepted.
    expect((await send("POST", `/api/v1/cli/platforms/${platformId}/deploy`, { headers: bearer })).status).toBe(202)
    expect((await send("GET", `/api/v1/cli/platforms/${platformId}/deployments`, { headers: bearer })).status).toBe(200)
    expect((await send("GET", `/api/v1/cli/platforms/${platformId}/deployments/dep_0000000000000000000000000`, { headers: bearer })).status).toBe(404)
    // The vault's MCP endpoint.
    const mcp = { ...bearer, accept: "application/json, text/event-stream" }
    expect((await send("POST", "/mcp", { headers: mcp, body: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "traffic", version: "1" } } } })).status).toBe(200)
    expect((await send("POST", "/mcp", { body: { jsonrpc: "2.0", id: 2, method: "ping" } })).status).toBe(401)

    // The gateway's rate limit: sign-in has the credentials class (10 a minute per address).
    let limited: Exchange | undefined
    for (let attempt = 0; attempt < 12 && limited === undefined; attempt++) {
      const refused = await send("POST", "/api/v1/iam/api/auth/sign-in/email", { body: { email: "openapi-traffic@example.com", password: "wrong horse battery" } })
      if (refused.status === 429) limited = refused
    }
    expect(limited?.status).toBe(429)

    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
    addFormats.default(ajv)
    ajv.addSchema({ ...document, $id: "https://core.test/openapi.json" })
    const statuses = exchanges.map((exchange) => `${exchange.method} ${exchange.path.split("?")[0]} ${exchange.status}`)
    expect(exchanges.flatMap((exchange) => problemsOf(ajv, exchange)), statuses.join("\n")).toEqual([])
    expect(new Set(exchanges.map((exchange) => exchange.status >= 400))).toEqual(new Set([false, true]))
  }, SLOW)
})
