import { execFileSync, spawn } from "node:child_process"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SourceHostLocal } from "../src/adapters/SourceHostLocal.js"
import { withoutPaths } from "../src/internal/failures.js"
import { SourceHost } from "../src/ports/SourceHost.js"
import { DeployStorage } from "../src/Storage.js"
import { storageAt } from "./support/localStorage.js"

/** The local source host's create under concurrency (issue 27), in one process and across several. */
let root: string
beforeEach(async () => {
  root = await Fs.mkdtemp(Path.join(Os.tmpdir(), "core-local-host-"))
})
afterEach(() => Fs.rm(root, { recursive: true, force: true }))

const git = () => Path.join(root, "git")
const provided = <A, E>(effect: Effect.Effect<A, E, SourceHost>) =>
  Effect.provide(effect, SourceHostLocal.pipe(Layer.provide(Layer.succeed(DeployStorage, storageAt(git())))))
const newRepo = { platformId: "plt_1", name: "ada", config: { platformId: "plt_1", displayName: "Ada", features: {} } }

/** One bare repository `<name>.git` with the one creating commit, and no staging directory left. */
const oneRepository = async (name: string) => {
  expect(await Fs.readdir(git())).toEqual([`${name}.git`])
  const log = execFileSync("git", ["log", "--format=%s", "main"], { cwd: Path.join(git(), `${name}.git`), encoding: "utf8" })
  expect(log.trim().split("\n")).toEqual(["Create the platform's repository"])
}

describe("SourceHostLocal", () => {
  it.effect("8 creates of one name at once in a process: one created, seven exists, one repository", () =>
    provided(Effect.gen(function*() {
      const host = yield* SourceHost
      const answers = yield* Effect.all(Array.from({ length: 8 }, () => host.create(newRepo)), { concurrency: "unbounded" })
      expect(answers.map((answer) => answer.created).sort()).toEqual([false, false, false, false, false, false, false, true])
      expect(new Set(answers.map((answer) => answer.cloneUrl)).size).toBe(1)
      yield* Effect.promise(() => oneRepository("ada"))
    })))

  it("3 processes creating one name at once: one created, two exists, one repository", async () => {
    const script = fileURLToPath(new URL("./support/createRepository.ts", import.meta.url))
    const children = Array.from({ length: 3 }, () => {
      const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", script, git(), "bob"], { stdio: ["pipe", "pipe", "inherit"] })
      let output = ""
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
      const ready = new Promise<void>((resolve) => child.stdout.on("data", () => output.startsWith("ready\n") && resolve()))
      const exited = new Promise<string>((resolve) => child.on("close", () => resolve(output.replace("ready\n", ""))))
      return { child, ready, exited }
    })
    // Every process loaded, then all told to create at once.
    await Promise.all(children.map((c) => c.ready))
    for (const c of children) c.child.stdin.end("go\n")
    const outputs = await Promise.all(children.map((c) => c.exited))
    expect(outputs.sort()).toEqual(["created", "exists", "exists"])
    await oneRepository("bob")
  }, 180_000) // three processes that each load the sources through tsx: slow on a loaded machine

  it.effect("a failure names what failed, never a path, a command or an errno", () =>
    provided(Effect.gen(function*() {
      const host = yield* SourceHost
      const made = yield* host.create(newRepo)
      const error = yield* Effect.flip(host.archive(made, "no-such-branch", Path.join(root, "out", "x.tar.gz")))
      expect(error).toMatchObject({ _tag: "UpstreamUnavailable", message: "The local source host could not archive the branch no-such-branch" })
      const missing = yield* Effect.flip(host.updateConfig({ ...made, repoFullName: "local/gone" }, (config) => config, "x"))
      expect(missing.message).toBe("The local source host could not commit the configuration")
    })))

  it("withoutPaths replaces absolute paths and file URLs, keeps the rest", () => {
    expect(withoutPaths("fatal: repository '/tmp/x/deploy/git/a.git.1.tmp' does not exist"))
      .toBe("fatal: repository '<path>' does not exist")
    expect(withoutPaths("ENOENT: no such file or directory, rename '/a/b' -> '/c/d'")).toBe("ENOENT: no such file or directory, rename '<path>' -> '<path>'")
    expect(withoutPaths("To file:///data/git/x.git\n ! [rejected] main -> main (fetch first)")).toBe("To <path>\n ! [rejected] main -> main (fetch first)")
    expect(withoutPaths("The content of docs/index.html is missing from the store")).toBe("The content of docs/index.html is missing from the store")
  })
})
