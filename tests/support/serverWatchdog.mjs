#!/usr/bin/env node
// Runs `core-server ...args` for a test server that outlives the test file that started it
// (tests/support/sharedServer.ts) and ends it when vitest ends: on SIGTERM, or when the vitest
// process (`owner`) is gone, however it ended, so that no server is left behind.
//
//   node serverWatchdog.mjs <owner pid> <core-server.mjs> ...args
import { spawn } from "node:child_process"

const [owner, bin, ...args] = process.argv.slice(2)
const child = spawn(process.execPath, [bin, ...args], { stdio: "inherit" })
const end = () => child.kill("SIGKILL")
process.on("SIGTERM", end)
process.on("SIGINT", end)
child.on("exit", (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)))
// Not a wait in a test: the watchdog's one check, each second, that its owner still runs.
setInterval(() => {
  try {
    process.kill(Number(owner), 0)
  } catch {
    end()
  }
}, 1_000).unref()
