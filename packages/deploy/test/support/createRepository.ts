/**
 * One process's create of a local repository, for the cross-process test: `node --import tsx
 * createRepository.ts <git dir> <name>` prints `ready` once loaded, creates when a line comes on
 * its standard input (so that every process starts at once), then prints `created` or `exists`.
 */
import { Effect, Layer } from "effect"
import { SourceHostLocal } from "../../src/adapters/SourceHostLocal.js"
import { SourceHost } from "../../src/ports/SourceHost.js"
import { DeployStorage } from "../../src/Storage.js"
import { storageAt } from "./localStorage.js"

const [git, name] = process.argv.slice(2) as [string, string]
process.stdout.write("ready\n")
await new Promise((resolve) => process.stdin.once("data", resolve))
process.stdin.pause()
const created = await Effect.runPromise(
  Effect.flatMap(SourceHost, (host) => host.create({ platformId: "plt_1", name, config: { platformId: "plt_1", features: {} } })).pipe(
    Effect.provide(SourceHostLocal.pipe(Layer.provide(Layer.succeed(DeployStorage, storageAt(git)))))
  )
)
process.stdout.write(created.created ? "created" : "exists")
