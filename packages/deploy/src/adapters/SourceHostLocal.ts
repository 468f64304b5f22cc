import { execFile } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { promisify } from "node:util"
import { Effect, Layer } from "effect"
import { hostWork } from "../internal/failures.js"
import { type CreatedRepo, SourceHost } from "../ports/SourceHost.js"
import { DeployStorage } from "../Storage.js"

const run = promisify(execFile)
const IDENTITY = ["-c", "user.name=Core", "-c", "user.email=core@localhost", "-c", "commit.gpgsign=false"]
const git = (cwd: string, ...args: Array<string>) => run("git", [...IDENTITY, ...args], { cwd, maxBuffer: 16 * 1024 * 1024 })

const placeholder = (name: string) =>
  `<!doctype html>\n<html><head><meta charset="utf-8"><title>${name.replace(/[<>&"]/g, "")}</title></head>` +
  `<body><h1>${name.replace(/[<>&"]/g, "")}</h1><p>Deployed from the platform's repository by Core.</p></body></html>\n`

const HOST = "local source host"

const isRepository = (bare: string) => Fs.stat(Path.join(bare, "HEAD")).then(() => true, () => false)

/** A rename refused because the target is there: another process made the repository first. */
const lostTheRace = (error: unknown) => ["ENOTEMPTY", "EEXIST"].includes(String((error as { code?: unknown }).code))

/** A scratch clone of `bare`, removed after `work`. */
const withClone = async <A>(bare: string, work: (dir: string) => Promise<A>): Promise<A> => {
  const dir = await Fs.mkdtemp(Path.join(Os.tmpdir(), "core-repo-"))
  try {
    await run("git", ["clone", "--quiet", bare, dir])
    return await work(dir)
  } finally {
    await Fs.rm(dir, { recursive: true, force: true })
  }
}

/** One change of a repository at a time in this process (a push behind another's is refused as not a fast-forward). */
const queues = new Map<string, Promise<unknown>>()
const serialized = <A>(key: string, work: () => Promise<A>): Promise<A> => {
  const run = (queues.get(key) ?? Promise.resolve()).then(work, work)
  const tail = run.catch(() => undefined)
  queues.set(key, tail)
  void tail.then(() => queues.get(key) === tail && queues.delete(key))
  return run
}

/** Make `work` again when its push lost a race with another process's (decision 0490): at most 5 times. */
const retryingRejectedPush = async <A>(work: () => Promise<A>): Promise<A> => {
  for (let attempt = 1;; attempt++) {
    try {
      return await work()
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      if (attempt >= 5 || !/rejected|non-fast-forward|fetch first/.test(message)) throw error
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt))
    }
  }
}

/**
 * Local bare git repositories under `<data dir>/deploy/git/<name>.git` (the default source host):
 * real repositories a `git clone` of the answered `file://` URL reaches, holding `core.json` (the
 * platform's configuration) and `site/` (what the no-body deploy serves).
 */
export const SourceHostLocal: Layer.Layer<SourceHost, never, DeployStorage> = Layer.effect(
  SourceHost,
  Effect.map(DeployStorage, (storage) => {
    const bareOf = (name: string) => Path.join(storage.git, `${name}.git`)
    return {
      name: "local",
      // Made once (decision 0570): one creation of a name at a time in this process, and across
      // processes a repository built aside under a name of its own, then renamed into place — a
      // rename is atomic, so one creator wins and the others answer `created: false`.
      create: (repo) =>
        hostWork(HOST, "create the repository", () =>
          serialized(`create:${repo.name}`, async (): Promise<CreatedRepo> => {
            const bare = bareOf(repo.name)
            const answer = { repoFullName: `local/${repo.name}`, defaultBranch: "main", cloneUrl: pathToFileURL(bare).href }
            if (await isRepository(bare)) return { ...answer, created: false }
            await Fs.mkdir(storage.git, { recursive: true })
            const staging = `${bare}.${process.pid}.${randomUUID()}.tmp`
            try {
              await run("git", ["init", "--quiet", "--bare", staging])
              await run("git", ["symbolic-ref", "HEAD", "refs/heads/main"], { cwd: staging })
              await withClone(staging, async (dir) => {
                await git(dir, "checkout", "--quiet", "-b", "main")
                await Fs.writeFile(Path.join(dir, "core.json"), `${JSON.stringify(repo.config, null, 2)}\n`)
                await Fs.mkdir(Path.join(dir, "site"), { recursive: true })
                await Fs.writeFile(Path.join(dir, "site", "index.html"), placeholder(String(repo.config.displayName ?? repo.name)))
                await git(dir, "add", "-A")
                await git(dir, "commit", "--quiet", "-m", "Create the platform's repository")
                await git(dir, "push", "--quiet", "origin", "main")
              })
              await Fs.rename(staging, bare)
              return { ...answer, created: true }
            } catch (error) {
              if (lostTheRace(error) && await isRepository(bare)) return { ...answer, created: false }
              throw error
            } finally {
              await Fs.rm(staging, { recursive: true, force: true })
            }
          })),
      updateConfig: (repo, update, message) =>
        hostWork(HOST, "commit the configuration", () =>
          serialized(repo.repoFullName, () => retryingRejectedPush(() => withClone(bareOf(repo.repoFullName.replace(/^local\//, "")), async (dir) => {
            const file = Path.join(dir, "core.json")
            const current = JSON.parse(await Fs.readFile(file, "utf8").catch(() => "{}")) as Record<string, unknown>
            await Fs.writeFile(file, `${JSON.stringify(update(current), null, 2)}\n`)
            await git(dir, "add", "core.json")
            const status = await git(dir, "status", "--porcelain")
            if (status.stdout.trim() === "") return
            await git(dir, "commit", "--quiet", "-m", message)
            await git(dir, "push", "--quiet", "origin", repo.defaultBranch)
          })))),
      archive: (repo, branch, file) =>
        hostWork(HOST, `archive the branch ${branch}`, async () => {
          await Fs.mkdir(Path.dirname(file), { recursive: true })
          await run("git", ["archive", "--format=tar.gz", "-o", file, `${branch}:site`], {
            cwd: bareOf(repo.repoFullName.replace(/^local\//, ""))
          })
        })
    }
  })
)
