import { mkdtemp, mkdir, rm, unlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Vault, VaultConfig } from "../src/index.js"
import { eventually } from "@core/kernel/testing/poll"

/**
 * Live reload: the served vault follows its folder within a second when a file is added, edited
 * or removed, and a file that stops parsing is dropped with a warning, never a crash.
 */
let dir: string
let runtime: ManagedRuntime.ManagedRuntime<Vault, never>

const doc = (title: string, body: string) => `---\ntitle: ${title}\ncategory: guides\nsummary: ${title}\n---\n# ${title}\n\n${body}\n`

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "vault-reload-"))
  await writeFile(join(dir, "first.md"), doc("First", "alpha words"))
  runtime = ManagedRuntime.make(Vault.Default.pipe(Layer.provide(VaultConfig.layer({ dir }))))
  await runtime.runPromise(Vault)
})

afterAll(async () => {
  await runtime.dispose()
  await rm(dir, { recursive: true, force: true })
})

const snapshot = () => runtime.runPromise(Effect.flatMap(Vault, (vault) => vault.snapshot))

/** Read the snapshot until `check` holds (docs/vault-server.md: a change shows within a second; the deadline allows a loaded machine). */
const reloaded = async (check: (paths: Array<string>, titles: Map<string, string>) => boolean) => {
  const started = Date.now()
  const titlesOf = (current: Awaited<ReturnType<typeof snapshot>>) => new Map([...current.documents.values()].map((d) => [d.path, d.title]))
  await eventually(snapshot, (current) => check([...current.documents.keys()], titlesOf(current)), {
    message: "the folder's change to show in the snapshot",
    timeout: 5_000,
    interval: 20
  })
  return Date.now() - started
}

describe("live reload", () => {
  it("serves the folder as it is at start", async () => {
    expect([...(await snapshot()).documents.keys()]).toEqual(["first"])
  })

  it("picks up an added file, also in a new subfolder", async () => {
    await writeFile(join(dir, "second.md"), doc("Second", "beta words"))
    await reloaded((paths) => paths.includes("second"))
    await mkdir(join(dir, "nested"))
    await writeFile(join(dir, "nested", "third.md"), doc("Third", "gamma"))
    await reloaded((paths) => paths.includes("nested/third"))
    const hits = (await snapshot()).index.search("gamma")
    expect(hits.map((hit) => hit.path)).toEqual(["nested/third"])
  })

  it("picks up an edit, and the index follows", async () => {
    await writeFile(join(dir, "first.md"), doc("First edited", "delta words"))
    await reloaded((_, titles) => titles.get("first") === "First edited")
    const current = await snapshot()
    expect(current.index.search("delta").map((hit) => hit.path)).toEqual(["first"])
    expect(current.index.search("alpha")).toEqual([])
  })

  it("drops a removed file", async () => {
    await unlink(join(dir, "second.md"))
    await reloaded((paths) => !paths.includes("second"))
  })

  it("drops a file that stops parsing, with a warning naming it, and keeps serving the rest", async () => {
    await writeFile(join(dir, "first.md"), "---\ntitle: [broken\n---\n# x\n")
    await reloaded((paths) => !paths.includes("first"))
    const current = await snapshot()
    expect([...current.documents.keys()]).toEqual(["nested/third"])
    expect(current.warnings).toEqual([expect.stringMatching(/^skipped first\.md: invalid front matter/)])
  })
})
