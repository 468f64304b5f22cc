import { chmodSync, mkdirSync, readdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { afterEach, describe, expect, it } from "vitest"
import { resolveAddresses } from "../src/commands/login.js"
import { slugOf } from "../src/commands/orgs.js"
import {
  AUDIENCE,
  clearCredentials,
  credentialPaths,
  readCredentials,
  withCredentialLock,
  writeCredentials,
  type Credentials
} from "../src/credentials.js"
import { tempHome, type TempHome } from "./login-support.js"

const record: Credentials = {
  token: "t",
  refreshToken: "r",
  email: "ada@example.com",
  platformId: "plt_1",
  role: "owner",
  expiresAt: "2099-01-01T00:00:00.000Z",
  iamUrl: "http://127.0.0.1:1/api/v1/iam",
  apiUrl: "http://127.0.0.1:1",
  audience: AUDIENCE
}

const homes: Array<TempHome> = []
const setup = () => {
  const home = tempHome()
  homes.push(home)
  return { home, paths: credentialPaths({ HOME: home.home }) }
}
afterEach(() => homes.splice(0).forEach((home) => home.remove()))

const posix = process.platform !== "win32"

describe("the credential file", () => {
  it("lives under HOME and round-trips every field", () => {
    const { home, paths } = setup()
    expect(paths).toEqual({ dir: home.dir, file: home.file })
    expect(readCredentials(paths)).toBeNull()
    writeCredentials(paths, record)
    expect(readCredentials(paths)).toEqual(record)
    expect(home.read()).toEqual(record)
  })

  it.skipIf(!posix)("is created 0600 in a 0700 folder whatever the umask, and tightens an existing folder", () => {
    const { home, paths } = setup()
    const previous = process.umask(0)
    try {
      writeCredentials(paths, record)
    } finally {
      process.umask(previous)
    }
    expect(home.modes()).toEqual({ file: 0o600, dir: 0o700 })
    chmodSync(home.dir, 0o755)
    writeCredentials(paths, record)
    expect(home.modes()).toEqual({ file: 0o600, dir: 0o700 })
  })

  it("leaves no temporary files behind", () => {
    const { home, paths } = setup()
    writeCredentials(paths, record)
    writeCredentials(paths, { ...record, token: "t2" })
    clearCredentials(paths)
    expect(readdirSync(home.dir)).toEqual(["credentials.json"])
  })

  it.skipIf(!posix)("clears in place to {}, keeping the mode; answers false when there is nothing to clear", () => {
    const { home, paths } = setup()
    expect(clearCredentials(paths)).toBe(false)
    writeCredentials(paths, record)
    chmodSync(home.file, 0o400)
    expect(clearCredentials(paths)).toBe(true)
    expect(home.read()).toEqual({})
    expect(statSync(home.file).mode & 0o777).toBe(0o400)
    expect(readCredentials(paths)).toBeNull()
  })

  it.skipIf(!posix)("refuses a symbolic link, a folder writable by others, and a file readable by others", () => {
    const { home, paths } = setup()
    mkdirSync(home.dir, { mode: 0o700 })
    writeFileSync(`${home.home}/elsewhere.json`, JSON.stringify(record), { mode: 0o600 })
    symlinkSync(`${home.home}/elsewhere.json`, home.file)
    expect(() => readCredentials(paths)).toThrow(/is a symbolic link; refusing to follow it/)
    expect(() => writeCredentials(paths, record)).toThrow(/is a symbolic link/)
    const other = setup()
    writeCredentials(other.paths, record)
    chmodSync(other.home.dir, 0o777)
    expect(() => readCredentials(other.paths)).toThrow(/writable by other users \(mode 0777\)\. Run: chmod 700/)
    chmodSync(other.home.dir, 0o700)
    chmodSync(other.home.file, 0o640)
    expect(() => readCredentials(other.paths)).toThrow(/accessible to other users \(mode 0640\)\. Run: chmod 600/)
  })

  it("names what is wrong with a corrupt record", () => {
    const { home, paths } = setup()
    writeCredentials(paths, record)
    for (const [content, reason] of [
      ["[]", "not a JSON object"],
      ["", "not valid JSON"],
      [JSON.stringify({ ...record, audience: "other" }), "field 'audience' is not 'core-cli'"],
      [JSON.stringify({ ...record, expiresAt: "soon" }), "field 'expiresAt' is not an ISO 8601 timestamp"],
      [JSON.stringify({ ...record, refreshToken: 1 }), "field 'refreshToken' is not a string or null"]
    ]) {
      writeFileSync(home.file, content)
      expect(() => readCredentials(paths)).toThrow(`is corrupt (${reason}). Run: core login`)
    }
  })

  it("serializes holders of the refresh lock and removes a stale one", async () => {
    const { home, paths } = setup()
    const order: Array<string> = []
    const hold = (name: string) =>
      withCredentialLock(paths, async () => {
        order.push(`${name} in`)
        await new Promise((resolve) => setTimeout(resolve, 100))
        order.push(`${name} out`)
      })
    await Promise.all([hold("a"), hold("b")])
    expect(order).toEqual(["a in", "a out", "b in", "b out"])
    writeFileSync(`${home.file}.lock`, "")
    const old = new Date(Date.now() - 60_000)
    utimesSync(`${home.file}.lock`, old, old)
    await expect(withCredentialLock(paths, async () => "taken")).resolves.toBe("taken")
    writeFileSync(`${home.file}.lock`, "")
    await expect(withCredentialLock(paths, async () => "never", 200)).rejects.toThrow(/Another core process holds/)
  })
})

describe("login addresses", () => {
  it("take the flag, then CORE_IAM_URL, then <api url>/api/v1/iam; the API address follows", () => {
    expect(resolveAddresses(undefined, {})).toEqual({ iamUrl: "http://localhost:8787/api/v1/iam", apiUrl: "http://localhost:8787" })
    expect(resolveAddresses(undefined, { CORE_API_URL: "https://core.example.com/" })).toEqual({
      iamUrl: "https://core.example.com/api/v1/iam",
      apiUrl: "https://core.example.com"
    })
    expect(resolveAddresses(undefined, { CORE_IAM_URL: "https://id.example.com/api/v1/iam" })).toEqual({
      iamUrl: "https://id.example.com/api/v1/iam",
      apiUrl: "https://id.example.com"
    })
    expect(resolveAddresses("http://iam.local:9000", { CORE_IAM_URL: "https://ignored.example.com", CORE_API_URL: "http://gw:8787" })).toEqual({
      iamUrl: "http://iam.local:9000",
      apiUrl: "http://gw:8787"
    })
    expect(resolveAddresses(undefined, { CORE_IAM_URL: "", CORE_API_URL: "" })).toEqual(resolveAddresses(undefined, {}))
    expect(() => resolveAddresses("localhost:8787", {})).toThrow("Invalid address 'localhost:8787' (from --iam-url): expected an http(s) URL")
  })
})

describe("organization slugs from names", () => {
  it("lower-cases, joins words with dashes and keeps within 63 characters", () => {
    expect(slugOf("Acme Tools")).toBe("acme-tools")
    expect(slugOf("  Café & Co.  ")).toBe("cafe-co")
    expect(slugOf("x".repeat(70))).toHaveLength(63)
  })
})
