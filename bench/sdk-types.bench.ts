import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { availableParallelism, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { durations, type Figures, median } from "./Figures.js"

/** The target (decision 0635): `tsc` on a one-file project against the packed SDK, `skipLibCheck: false`. */
const TARGET_SECONDS = 10

const root = fileURLToPath(new URL("..", import.meta.url))
const tsc = join(root, "node_modules", "typescript", "bin", "tsc")

/** The projects, each one file under the same tsconfig; the last two are the references. */
const PROJECTS: ReadonlyArray<{ readonly name: string; readonly source: () => string }> = [
  {
    name: "SDK: createClient, iam.health, resources.create",
    source: () => [
      `import { createClient } from "@core/sdk"`,
      `const core = createClient({ baseUrl: "http://localhost:8787", apiKey: "key" })`,
      `export const report = core.iam.health().then((health) => health.status)`,
      `export const created = core.registry.resources.create("plt_1", "ent_1", { stackId: "stk_1", resourceType: "sql_db", serviceName: "db", environment: "dev", edgeName: "db" })`,
      ""
    ].join("\n")
  },
  { name: "SDK + contracts + routes (tests/fixtures/sdk-user-types.ts)", source: () => readFileSync(join(root, "tests", "fixtures", "sdk-user-types.ts"), "utf8") },
  {
    name: "reference: zod alone (one schema, z.infer)",
    source: () => `import { z } from "zod"\nexport const Resource = z.object({ name: z.string(), environment: z.enum(["dev", "stg", "prod"]) })\nexport type Resource = z.infer<typeof Resource>\n`
  },
  { name: "reference: no import (the libraries alone)", source: () => `export const answer: number = 42\n` }
]

interface Measure {
  readonly cpu: number
  readonly wall: number
  readonly types: number
  readonly instantiations: number
  readonly files: number
}

/** Writes `process.cpuUsage()` (tsc's own CPU, steady on a busy machine) to stderr at exit. */
const cpuProbe = (dir: string): string => {
  const probe = join(dir, "cpu-probe.cjs")
  writeFileSync(probe, `process.on("exit", () => { const u = process.cpuUsage(); require("fs").writeSync(2, "CPU_MICROSECONDS " + (u.user + u.system) + "\\n") })\n`)
  return probe
}

const check = (dir: string, probe: string): Measure => {
  const started = process.hrtime.bigint()
  const result = spawnSync(process.execPath, ["--require", probe, tsc, "-p", "tsconfig.json", "--extendedDiagnostics"], { cwd: dir, encoding: "utf8" })
  const wall = Number(process.hrtime.bigint() - started) / 1e9
  if (result.status !== 0) throw new Error(`tsc in ${dir} exited ${result.status}:\n${result.stdout}\n${result.stderr}`)
  const figure = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(result.stdout)?.[1] ?? Number.NaN)
  return {
    cpu: Number(/CPU_MICROSECONDS (\d+)/.exec(result.stderr)?.[1] ?? Number.NaN) / 1e6,
    wall,
    types: figure("Types"),
    instantiations: figure("Instantiations"),
    files: figure("Files")
  }
}

/**
 * The packed SDK as a user's editor type-checks it (decision 0635): `npm run pack --
 * --only sdk` once (or `BENCH_SDK_TARBALL`), installed into a scratch project with its
 * dependencies, then `tsc` (`skipLibCheck: false`, `strict`, DOM) on one-file projects, interleaved
 * `BENCH_ROUNDS` times (3; medians): the SDK's main entry, the release test's fixture (which
 * imports `@core/sdk/contracts` and `@core/sdk/routes` too), and as references in the same run zod
 * alone and a file importing nothing. Ratios are of tsc's CPU time, which a busy machine changes
 * less than the wall time.
 */
export const run = async (): Promise<Figures> => {
  const { rounds } = durations(3)
  const work = mkdtempSync(join(tmpdir(), "core-bench-sdk-types-"))
  try {
    let tarball = process.env.BENCH_SDK_TARBALL ?? ""
    if (tarball === "") {
      const packed = execFileSync(process.execPath, [join(root, "scripts", "pack-packages.mjs"), "--only", "sdk", "--out", join(work, "tarballs")], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
      tarball = (JSON.parse(packed) as { tarballs: Record<string, string> }).tarballs["@core/sdk"]!
    }
    const project = join(work, "project")
    mkdirSync(project)
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "bench-sdk-types", private: true, type: "module" }))
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel", "error", tarball], { cwd: project, stdio: ["ignore", "ignore", "inherit"] })
    const probe = cpuProbe(work)
    const dirs = PROJECTS.map((spec, index) => {
      const dir = join(project, `p${index}`)
      mkdirSync(dir)
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
        compilerOptions: { target: "ES2022", lib: ["ES2022", "DOM"], module: "ESNext", moduleResolution: "Bundler", strict: true, noEmit: true, skipLibCheck: false, types: [] },
        files: ["index.ts"]
      }))
      writeFileSync(join(dir, "index.ts"), spec.source())
      return dir
    })
    const measures: Array<Array<Measure>> = PROJECTS.map(() => [])
    for (let round = 0; round < rounds; round++) {
      // A-B-C-D then D-C-B-A, so that a change of load weighs on every project alike.
      const order = round % 2 === 0 ? dirs.map((_, i) => i) : dirs.map((_, i) => dirs.length - 1 - i)
      for (const i of order) measures[i]!.push(check(dirs[i]!, probe))
    }
    const summary = measures.map((runs) => ({
      cpu: median(runs.map((m) => m.cpu)),
      wall: median(runs.map((m) => m.wall)),
      types: runs[0]!.types,
      instantiations: runs[0]!.instantiations,
      files: runs[0]!.files
    }))
    const zod = summary[2]!
    const bare = summary[3]!
    const sdk = summary[0]!
    const cpus = availableParallelism()
    return {
      title: `tsc on one-file projects against the packed @core/sdk (skipLibCheck: false), medians of ${rounds}`,
      columns: ["project", "wall s", "CPU s", "× zod alone (CPU)", "× no import (CPU)", "files", "types", "instantiations"],
      rows: PROJECTS.map((spec, i) => [
        spec.name,
        summary[i]!.wall.toFixed(1),
        summary[i]!.cpu.toFixed(1),
        (summary[i]!.cpu / zod.cpu).toFixed(2),
        (summary[i]!.cpu / bare.cpu).toFixed(2),
        summary[i]!.files,
        summary[i]!.types,
        summary[i]!.instantiations
      ]),
      checks: [
        `the SDK's one-file project: ${sdk.wall.toFixed(1)} s wall, ${sdk.cpu.toFixed(1)} s CPU (target ≤ ${TARGET_SECONDS} s wall): ${sdk.wall <= TARGET_SECONDS ? "met" : "NOT met"} (load average ${loadavg()[0]!.toFixed(1)} on ${cpus} cores: above the cores, the wall clock counts waiting for one)`,
        `its CPU time is ${(sdk.cpu / zod.cpu).toFixed(2)}× that of zod alone (target ≤ 1.0: the SDK costs a user less than importing zod): ${sdk.cpu <= zod.cpu ? "met" : "NOT met"}`
      ]
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
