import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as Terminal from "../src/Terminal.js"
import { eventuallyDefined } from "@core/kernel/testing/poll"
import { bin, environment, migratedDataDir, root } from "./ServerProcess.js"

const SLOW = 240_000
const work = mkdtempSync(join(tmpdir(), "core-terminal-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const recording = (isTTY: boolean) => {
  const written: Array<string> = []
  return { written, screen: Terminal.make({ isTTY, write: (text) => written.push(text) }, {}) }
}

describe("Terminal.make", () => {
  it("rewrites one status line in place and keeps it below the log lines", () => {
    const { screen, written } = recording(true)
    screen.status("Migrating database… 1/27")
    screen.status("Migrating database… 2/27")
    screen.line("07:00:00 warn  something")
    screen.clear()
    screen.line("after")
    expect(written).toEqual([
      "\r\x1b[2KMigrating database… 1/27",
      "\r\x1b[2KMigrating database… 2/27",
      "\r\x1b[2K07:00:00 warn  something\nMigrating database… 2/27",
      "\r\x1b[2K",
      "after\n"
    ])
  })

  it("shows no status line when stdout is not a terminal (or TERM=dumb)", () => {
    const { screen, written } = recording(false)
    screen.status("Migrating database… 1/27")
    screen.clear()
    expect([screen.interactive, written]).toEqual([false, []])
    expect(Terminal.make({ isTTY: true, write: () => undefined }, { TERM: "dumb" }).interactive).toBe(false)
  })

  it("logs JSON at CORE_LOG_LEVEL when piped; text with warnings only on a terminal unless CORE_LOG_LEVEL is set", () => {
    const piped = recording(false).screen
    const tty = recording(true).screen
    expect(Terminal.logging({ logLevel: "info", logLevelSet: false }, piped)).toEqual({ level: "info" })
    expect(Terminal.logging({ logLevel: "debug", logLevelSet: true }, piped)).toEqual({ level: "debug" })
    expect(Terminal.logging({ logLevel: "info", logLevelSet: false }, tty)).toMatchObject({ level: "warn", format: "text" })
    expect(Terminal.logging({ logLevel: "info", logLevelSet: true }, tty)).toMatchObject({ level: "info", format: "text" })
  })
})

/**
 * `core-server start` on a pseudo-terminal (util-linux `script`), so that its stdout is a TTY as
 * in a person's shell; what it prints arrives on `script`'s stdout.
 */
const onTerminal = (env: Record<string, string>) => {
  const child: ChildProcess = spawn("script", ["-qefc", `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} start`, "/dev/null"], {
    cwd: root,
    env: environment({ PORT: "0", TERM: "xterm", ...env }),
    stdio: ["pipe", "pipe", "pipe"],
    detached: true
  })
  const output = { text: "" }
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output.text += chunk))
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()))
  /** SIGTERM to the server itself (`script` would hang up its terminal at once), then its exit. */
  const stop = async () => {
    process.kill(serverPid(child.pid!), "SIGTERM")
    await exited
  }
  return { output, stop, kill: () => child.pid !== undefined && child.exitCode === null && process.kill(-child.pid, "SIGKILL") }
}

/** The `core-server` process under `script` (its pid, found by walking the children). */
const serverPid = (scriptPid: number): number => {
  const rows = spawnSync("ps", ["-e", "-o", "pid=,ppid=,args="], { encoding: "utf8" }).stdout.split("\n").map((row) => {
    const [pid, ppid, ...args] = row.trim().split(/\s+/)
    return { pid: Number(pid), ppid: Number(ppid), args: args.join(" ") }
  })
  const descendants = new Set([scriptPid])
  for (let grew = true; grew;) {
    grew = false
    for (const row of rows) if (descendants.has(row.ppid) && !descendants.has(row.pid)) (descendants.add(row.pid), grew = true)
  }
  const found = rows.find((row) => descendants.has(row.pid) && row.args.startsWith(process.execPath) && row.args.includes("core-server.mjs"))
  if (found === undefined) throw new Error("core-server is not running under script")
  return found.pid
}

const baseOf = async (output: { text: string }, timeoutMs = 180_000): Promise<string> => {
  const local = await eventuallyDefined(() => /Local: +(http:\/\/localhost:\d+)/.exec(output.text)?.[1], {
    message: () => `the first screen:\n${output.text}`,
    timeout: timeoutMs
  })
  return local.replace("localhost", "127.0.0.1")
}

const hasScript = spawnSync("script", ["--version"]).status === 0

describe.runIf(hasScript)("core-server start on a terminal", () => {
  it("first start: a progress line while it migrates, the first screen, no JSON and no line per request", async () => {
    const server = onTerminal({ CORE_DATA_DIR: ":memory:" })
    try {
      const base = await baseOf(server.output)
      expect((await fetch(`${base}/health`)).status).toBe(200)
      expect((await fetch(`${base}/api/v1/platforms`)).status).toBe(401)
      await server.stop()
      const text = server.output.text
      expect(text).toMatch(/Migrating database… 1\/\d+/)
      const total = /Migrating database… 1\/(\d+)/.exec(text)![1]
      expect(text).toContain(`Migrating database… ${total}/${total}`)
      expect(text).toContain("is running.")
      expect(text).toContain("warn  CORE_STATIC_API_KEY is not set: development bypass on.")
      expect(text).toContain("Stopping: answering")
      expect(text).not.toContain("{\"timestamp\"")
      expect(text).not.toMatch(/ request method=/)
    } finally {
      server.kill()
    }
  }, SLOW)

  it("prints a text line per request when CORE_LOG_LEVEL=info is asked for", async () => {
    const server = onTerminal({ CORE_DATA_DIR: await migratedDataDir(join(work, "data")), CORE_LOG_LEVEL: "info" })
    try {
      const base = await baseOf(server.output)
      expect((await fetch(`${base}/health`)).status).toBe(200)
      await server.stop()
      expect(server.output.text).toMatch(/\d{2}:\d{2}:\d{2} info  request [^\r\n]*path=\/health [^\r\n]*status=200[^\r\n]*requestId=/)
      expect(server.output.text).not.toContain("{\"timestamp\"")
    } finally {
      server.kill()
    }
  }, SLOW)
})
