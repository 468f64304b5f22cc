import { access, mkdir, readFile, rename, writeFile } from "node:fs/promises"
import { Session } from "node:inspector/promises"
import { dirname, join } from "node:path"

/** Where a target's profile goes: `<dir>/<target>-<pid>.cpuprofile`. */
export const profileFile = (dir: string, target: string, pid: number): string => join(dir, `${target}-${pid}.cpuprofile`)

/**
 * Sample this process's CPU (the V8 profiler, as `--cpu-prof` does, but started once the target
 * serves, so the profile holds requests rather than start-up); the returned function stops and
 * writes the profile, readable by Chrome DevTools or `topSelfTime`.
 */
export const startProfiling = async (file: string): Promise<() => Promise<void>> => {
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.start")
  return async () => {
    const { profile } = await session.post("Profiler.stop")
    await mkdir(dirname(file), { recursive: true })
    await writeFile(`${file}.partial`, JSON.stringify(profile))
    await rename(`${file}.partial`, file)
  }
}

/** Wait (up to `timeoutMillis`) for a stopped target to have written its profile. */
export const written = async (file: string, timeoutMillis = 15_000): Promise<boolean> => {
  for (const deadline = Date.now() + timeoutMillis; Date.now() < deadline;) {
    const found = await access(file).then(() => true, () => false)
    if (found) return true
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return false
}

interface Profile {
  readonly nodes: ReadonlyArray<{
    readonly id: number
    readonly callFrame: {
      readonly functionName: string
      readonly url: string
      readonly lineNumber: number
      readonly columnNumber: number
    }
  }>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const shortUrl = (url: string): string =>
  url.replace(/^.*\/node_modules\//, "").replace(/^file:\/\/.*?\/(packages|bench)\//, "$1/")

/**
 * The functions that spent the most self time in a `.cpuprofile`, as `share  name  where` lines
 * (idle time left out; garbage collection and native calls such as `writev` kept). Sources run
 * through tsx show as one line: the column tells their functions apart.
 */
export const topSelfTime = async (file: string, count: number): Promise<ReadonlyArray<string>> => {
  const profile = JSON.parse(await readFile(file, "utf8")) as Profile
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
  const spent = new Map<string, number>()
  let total = 0
  profile.samples.forEach((id, i) => {
    const frame = frames.get(id)!
    if (frame.functionName === "(idle)") return
    const at = frame.url === "" ? "" : `  ${shortUrl(frame.url)}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`
    const key = `${frame.functionName || "(anonymous)"}${at}`
    const delta = profile.timeDeltas[i] ?? 0
    spent.set(key, (spent.get(key) ?? 0) + delta)
    total += delta
  })
  return [...spent]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, time]) => `${((100 * time) / total).toFixed(1).padStart(5)} %  ${key}`)
}
