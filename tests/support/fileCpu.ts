// Setup file (vitest.config.ts adds it when CORE_TEST_TIMES names a file): the CPU a test file
// used in its worker — the process's own (its threads included) and that of the child processes
// it started and reaped (a `core-server`, the `core` binary) — written to the file's task meta,
// where scripts/file-times.mjs reads it. Unlike the file's wall time, it does not grow when the
// machine is busy, so that two runs can be compared whatever else ran beside them.
import { readFileSync } from "node:fs"
import { afterAll } from "vitest"

/** The CPU, in ms, of the reaped children of this process (`cutime` + `cstime` of /proc/self/stat). */
const children = (): number => {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    // After the command's ")": state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
    return (Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    return 0
  }
}

const own = (): number => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

const start = { own: own(), children: children() }

afterAll((suite) => {
  const meta = suite.meta as { cpuMs?: number; childCpuMs?: number }
  meta.cpuMs = Math.round(own() - start.own)
  meta.childCpuMs = Math.round(children() - start.children)
})
