import { createServer, type Server } from "node:http"
import { type AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { core, tempHome, type TempHome } from "../packages/cli/test/login-support.js"
import { closedAddress } from "../packages/cli/test/scripted-identity.js"

/**
 * The CLI in a new user's first hour: usage errors, help, confirmation of destructive
 * commands and the causes of login failures, on the real `core` binary without a Core server.
 */
const homes: Array<TempHome> = []
const home = () => {
  const made = tempHome()
  homes.push(made)
  return made
}
afterAll(() => homes.forEach((made) => made.remove()))

describe.concurrent("usage errors exit 2 everywhere, with 'did you mean'", () => {
  it("an unknown option of whoami, logout and login exits 2 and suggests the closest option", async () => {
    expect(await core(home(), ["whoami", "--jsn"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "core: Unknown option '--jsn'. Did you mean '--json'? Usage: core whoami [--json]\n"
    })
    expect(await core(home(), ["logout", "now"])).toEqual({ code: 2, stdout: "", stderr: "core: Unexpected argument 'now'. Usage: core logout\n" })
    expect(await core(home(), ["login", "--tokn", "x"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "core: Unknown option '--tokn'. Did you mean '--token'? Usage: core login [--token <token>] [--iam-url <url>] [--no-browser]\n"
    })
  })

  it("an unknown subcommand or option of a group suggests the closest one", async () => {
    expect(await core(home(), ["keys", "lst"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "core: Unknown subcommand 'lst' (expected list, create, revoke). Did you mean 'list'? Usage: core keys <list|create|revoke> [options]\n"
    })
    const flag = await core(home(), ["keys", "list", "--ogr", "acme"])
    expect(flag).toMatchObject({ code: 2, stdout: "" })
    expect(flag.stderr).toMatch(/^core: Unknown option '--ogr'\. Did you mean '--org'\? Usage: core keys list /)
    expect(await core(home(), ["help", "keys", "craete"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Unknown subcommand 'craete' of core keys. Did you mean 'create'?")
    })
  })

  it("--limit must be a positive integer", async () => {
    for (const group of ["orgs", "members", "invitations", "keys", "roles", "grants"]) {
      const answer = await core(home(), [group, "list", "--limit", "0"])
      expect({ group, code: answer.code, stdout: answer.stdout }).toEqual({ group, code: 2, stdout: "" })
      expect(answer.stderr).toMatch(/^core: --limit must be a positive integer, got '0'\. Usage: core \w+ list/)
    }
  })
})

describe.concurrent("help", () => {
  it("'core help keys create' and 'core keys create --help' print the subcommand's usage, options, examples and environment", async () => {
    const help = await core(home(), ["help", "keys", "create"])
    expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: "" })
    expect(help.stdout).toMatch(/^Usage: core keys create \[--name <name>\] \[--permission <permission>\]… \[--expires <ISO 8601>\] \[--org <id\|slug>\]\n/)
    expect(help.stdout).toContain("\nOptions:\n")
    expect(help.stdout).toMatch(/\n {6}--permission <permission> +\S/)
    expect(help.stdout).toMatch(/\nExamples:\n {2}core keys create --name ci --permission members:read\n/)
    expect(help.stdout).toMatch(/\nEnvironment:\n(?: {2}\S.*\n)* {2}CORE_ORG +\S/)
    expect(await core(home(), ["keys", "create", "--help"])).toEqual(help)
    const json = JSON.parse((await core(home(), ["help", "keys", "create", "--json"])).stdout)
    expect(json).toMatchObject({ name: "keys create", usage: expect.stringMatching(/^core keys create /), examples: expect.any(Array) })
  })

  it("a group's help lists its subcommands under their own heading", async () => {
    const help = await core(home(), ["help", "keys"])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/\nSubcommands:\n {2}list +\S.*\n {2}create +\S.*\n {2}revoke <key id> +\S.*\n\nOptions:\n/)
    expect(help.stdout).not.toMatch(/Options:\n {2}list/)
    // Each subcommand's own options, so `--permission` and its default are found from `core keys --help`.
    expect(help.stdout).toMatch(/\nOptions of keys create:\n(?: {6}--\S.*\n)* {6}--permission <permission> +A permission it carries, .*default: every :read permission you hold/)
    expect(help.stdout).toContain("\nExamples:\n")
    expect(help.stdout).toContain("Run 'core help keys <subcommand>' for the options of one subcommand.\n")
  })

  it("the overview names the environment variables", async () => {
    const help = await core(home(), ["--help"])
    expect(help.stdout).toMatch(/\nEnvironment:\n(?: {2}\S.*\n)+/)
    for (const name of ["CORE_API_URL", "CORE_IAM_URL", "CORE_ORG"]) expect(help.stdout).toMatch(new RegExp(`\\n  ${name} +\\S`))
  })
})

describe.concurrent("destructive commands need --yes when there is no terminal", () => {
  it.each([
    [["keys", "revoke", "key_1"], "revoke API key key_1"],
    [["invitations", "revoke", "inv_1", "--org", "org_1"], "revoke invitation inv_1"],
    [["members", "remove", "bob@example.com", "--org", "org_1"], "remove member bob@example.com"],
    [["roles", "delete", "auditor", "--org", "org_1"], "delete role mapping auditor"],
    [["grants", "delete", "grt_1"], "delete grant grt_1"]
  ])("%j refuses with exit 2 before contacting anything", async (args, what) => {
    expect(await core(home(), args)).toEqual({
      code: 2,
      stdout: "",
      stderr: `core: Refusing to ${what} without confirmation: pass --yes (there is no terminal to ask on).\n`
    })
  })
})

describe("login failures name the address tried and the likely cause", () => {
  let closed: string
  let foreign: Server
  let foreignUrl: string
  beforeAll(async () => {
    closed = await closedAddress()
    foreign = createServer((_request, response) => {
      response.writeHead(404, { "content-type": "text/html" })
      response.end("<h1>Not Found</h1>")
    })
    await new Promise<void>((resolve) => foreign.listen(0, "127.0.0.1", resolve))
    foreignUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => foreign.close(() => resolve())))

  it("connection refused: the server is down or the port is wrong", async () => {
    const answer = await core(home(), ["login", "--iam-url", `${closed}/api/v1/iam`])
    expect(answer).toEqual({
      code: 1,
      stdout: "",
      stderr:
        `core: Interactive login is unavailable and the identity service cannot be reached at ${closed}/api/v1/iam; use the token option: core login --token <token>\n` +
        `  Tried: POST ${closed}/api/v1/iam/oauth/device/code\n` +
        `  Likely cause: nothing listens at ${closed.replace("http://", "")} (connection refused): the server is not running (start it with: npx core-server start), or the port is wrong.\n`
    })
  })

  it("a 404 from a server that is not Core", async () => {
    const answer = await core(home(), ["login", "--iam-url", `${foreignUrl}/api/v1/iam`])
    expect(answer).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "core: Device login endpoint not available (404)\n" +
        `  Tried: POST ${foreignUrl}/api/v1/iam/oauth/device/code\n` +
        `  Likely cause: the server at ${foreignUrl} is not a Core server (its 404 is not Core's error envelope): check the address and the port.\n`
    })
  })

  it("a malformed API key is refused before anything is stored", async () => {
    const h = home()
    expect(await core(h, ["login", "--token", "core_short", "--iam-url", `${closed}/api/v1/iam`])).toEqual({
      code: 1,
      stdout: "",
      stderr: "core: This is not a well-formed API key: an API key is core_ followed by 43 letters, digits, '-' or '_' (was it cut short when copied?). Nothing was stored.\n"
    })
    expect(h.read()).toBeUndefined()
  })
})
