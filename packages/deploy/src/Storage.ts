import { createHash, type Hash } from "node:crypto"
import { createWriteStream, type WriteStream } from "node:fs"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { PassThrough, type Readable } from "node:stream"
import { CoreConfig, type PayloadTooLarge, type ValidationError } from "@core/kernel"
import { LocalEdge } from "@core/provisioning"
import { Config, Context, Effect, Exit, Layer, Stream } from "effect"
import { badArchive, uploadTooLarge } from "./Errors.js"
import { ArchiveRefused, type Inspected, inspect } from "./internal/archive.js"

/** Where the command-line backend keeps its files (decision 0482). */
export interface DeployPaths {
  /** Uploads while they stream in, and the staging of their files. */
  readonly uploads: string
  /** The content store: each file of every deployment once, by SHA-256. */
  readonly blobs: string
  /** Local bare git repositories (the local source host). */
  readonly git: string
  /** The local edge's root: `sites/<project>/<deploymentId>`, `pages/<project>`, `previews/<project>/<branch>`. */
  readonly edge: string
  /** The port the local edge's sites are served on (the server's `PORT`). */
  readonly port: number
}

/** The limits of an upload (decision 0483); the route's own ceiling is 100 MiB. */
export interface DeployLimits {
  readonly maxUploadBytes: number
  readonly maxFiles: number
  readonly maxUnpackedBytes: number
}

/** The defaults: 100 MiB uploads, 20,000 files, 1 GiB inflated. */
export const DEFAULT_LIMITS: DeployLimits = {
  maxUploadBytes: 100 * 1024 * 1024,
  maxFiles: 20_000,
  maxUnpackedBytes: 1024 * 1024 * 1024
}

const positive = (name: string, fallback: number, max: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be a whole number from 1 to ${max}`, validation: (value) => value >= 1 && value <= max }),
    Config.withDefault(fallback)
  )

/**
 * The limits from the environment: `CORE_DEPLOY_MAX_UPLOAD_BYTES` (at most the route's 100 MiB),
 * `CORE_DEPLOY_MAX_FILES`, `CORE_DEPLOY_MAX_UNPACKED_BYTES`; a bad value keeps the default.
 */
const LIMITS_FROM_ENV: Effect.Effect<DeployLimits> = Config.all({
  maxUploadBytes: positive("CORE_DEPLOY_MAX_UPLOAD_BYTES", DEFAULT_LIMITS.maxUploadBytes, DEFAULT_LIMITS.maxUploadBytes),
  maxFiles: positive("CORE_DEPLOY_MAX_FILES", DEFAULT_LIMITS.maxFiles, 1_000_000),
  maxUnpackedBytes: positive("CORE_DEPLOY_MAX_UNPACKED_BYTES", DEFAULT_LIMITS.maxUnpackedBytes, 64 * 1024 * 1024 * 1024)
}).pipe(Effect.orElseSucceed(() => DEFAULT_LIMITS))

/** The paths and limits as a service: `layer` from the process's configuration (`<CORE_DATA_DIR>/deploy`). */
export class DeployStorage extends Context.Tag("@core/deploy/DeployStorage")<DeployStorage, DeployPaths & { readonly limits: DeployLimits }>() {
  /** Under the data directory, or one temporary directory per process when the data is in memory. */
  static readonly layer = (limits: Partial<DeployLimits> = {}): Layer.Layer<DeployStorage, never, CoreConfig> =>
    Layer.effect(DeployStorage, Effect.map(Effect.zip(CoreConfig, LIMITS_FROM_ENV), ([config, fromEnv]) => {
      const root = config.dataDir === undefined ? Path.join(Os.tmpdir(), `core-deploy-${process.pid}`) : Path.join(config.dataDir, "deploy")
      return {
        uploads: Path.join(root, "uploads"),
        blobs: Path.join(root, "blobs"),
        git: Path.join(root, "git"),
        edge: LocalEdge.rootOf(config),
        port: config.port,
        limits: { ...DEFAULT_LIMITS, ...fromEnv, ...limits }
      }
    }))
}

/** The directory a deployment's files are materialized in. */
export const siteDir = (edge: string, project: string, deploymentId: string): string =>
  Path.join(edge, "sites", LocalEdge.safeSegment(project), deploymentId)

/** The link a project's production is served through. */
export const productionLink = (edge: string, project: string): string => LocalEdge.pagesDir(edge, project)

/** The link a preview branch is served through. */
export const previewLink = (edge: string, project: string, branch: string): string =>
  Path.join(edge, "previews", LocalEdge.safeSegment(project), LocalEdge.safeSegment(branch))

/** Where an upload waits for its deployment job (which unpacks it into the content store). */
export const uploadFile = (uploads: string, deploymentId: string): string => Path.join(uploads, `${deploymentId}.tar.gz`)

/**
 * An upload's body as the route hands it over: Node's request itself when the route runs on Node
 * (read as it arrives, no adapter, no per-chunk Effect), or a stream of chunks on web runtimes.
 * Either way `receive` counts it against the upload limit while it streams.
 */
export type UploadBody =
  | { readonly _tag: "Node"; readonly source: Readable }
  | { readonly _tag: "Stream"; readonly stream: Stream.Stream<Uint8Array, PayloadTooLarge> }

/** A stored upload: its file, size, SHA-256 (when asked for) and what the streaming check found. */
export interface Received {
  readonly file: string
  readonly size: number
  readonly hash: string
  readonly referenced: Record<string, string>
  readonly paths: ReadonlySet<string>
}

/** What stops an upload: a 413 or a 400 naming the refused entry (anything else is a defect). */
export type Refusal = PayloadTooLarge | ValidationError

/** Writes go to disk in batches of up to 1 MiB (the file stream's buffer, written with one `writev`). */
const WRITE_BATCH = 1024 * 1024
/** The streaming check may lag the write by up to 8 MiB before the upload waits for it (bounded memory). */
const CHECK_LAG = 8 * 1024 * 1024

const notGzip = () => badArchive("The upload is not gzip: send a gzip tarball (application/gzip)")

/** A refusal of the streaming check as the route's 400; anything else is a defect. */
const refusedArchive = (error: unknown): Effect.Effect<never, Refusal> =>
  error instanceof ArchiveRefused ? Effect.fail(badArchive(error.message, error.entry)) : Effect.die(error)

const closed = (stream: WriteStream): Promise<void> =>
  stream.closed ? Promise.resolve() : new Promise((resolve) => stream.once("close", () => resolve()))

/**
 * One upload on its way to disk: each chunk is counted, hashed (only for an idempotency key), written
 * to `<file>.partial` through a file stream and fed to the archive check (`inspect`), in one pass. The
 * file gets its name only once the body ended and passed the check; `abort` removes it.
 */
class Receiver {
  private size = 0
  private refused: { readonly error: unknown } | undefined
  private failed: { readonly error: unknown } | undefined
  private readonly hash: Hash | undefined
  private readonly out: WriteStream
  private readonly feed = new PassThrough({ highWaterMark: CHECK_LAG })
  private readonly inspection: Promise<Inspected | undefined>
  private readonly partial: string

  constructor(readonly file: string, private readonly limits: DeployLimits, hashed: boolean) {
    this.partial = `${file}.partial`
    this.hash = hashed ? createHash("sha256") : undefined
    this.out = createWriteStream(this.partial, { highWaterMark: WRITE_BATCH })
    this.out.on("error", (error) => (this.failed ??= { error }))
    this.inspection = inspect(this.feed, limits).catch((error: unknown) => {
      this.refused = { error }
      return undefined
    })
  }

  /** A failure already known (a refused archive, a failed write), as the effect that ends the upload. */
  private stopped(): Effect.Effect<never, Refusal> | undefined {
    if (this.failed !== undefined) return Effect.die(this.failed.error)
    if (this.refused !== undefined) return refusedArchive(this.refused.error)
    return undefined
  }

  /** Take a chunk: `true` to go on, `false` to wait for `drained` first, or the effect that ends the upload. */
  accept(chunk: Uint8Array): boolean | Effect.Effect<never, Refusal> {
    const stopped = this.stopped()
    if (stopped !== undefined) return stopped
    if (this.size === 0 && chunk.byteLength >= 2 && (chunk[0] !== 0x1f || chunk[1] !== 0x8b)) return Effect.fail(notGzip())
    this.size += chunk.byteLength
    const limit = this.limits.maxUploadBytes
    if (this.size > limit) return Effect.fail(uploadTooLarge(limit))
    this.hash?.update(chunk)
    const written = this.out.write(chunk)
    const checked = this.feed.destroyed || this.feed.write(chunk)
    return written && checked
  }

  /** Once the file stream and the check took what they were given (or stopped). */
  drained(): Promise<void> {
    const waits: Array<Promise<void>> = []
    for (const stream of [this.out, this.feed]) {
      if (!stream.writableNeedDrain || stream.destroyed) continue
      waits.push(new Promise((resolve) => {
        const done = () => {
          stream.off("drain", done).off("close", done)
          resolve()
        }
        stream.on("drain", done).on("close", done)
      }))
    }
    return Promise.all(waits).then(() => undefined)
  }

  /** After the last chunk: waits for the file and the check, then gives the file its name. */
  finish(): Effect.Effect<Received, Refusal> {
    return Effect.suspend(() => {
      const stopped = this.stopped()
      if (stopped !== undefined) return stopped
      if (this.size === 0) return Effect.fail(badArchive("The upload is empty: send a gzip tarball of the built site"))
      this.out.end()
      this.feed.end()
      return Effect.flatMap(Effect.promise(() => Promise.all([closed(this.out), this.inspection])), ([, checked]) => {
        const failure = this.stopped()
        if (failure !== undefined || checked === undefined) return failure ?? refusedArchive(this.refused?.error)
        return Effect.as(Effect.promise(() => Fs.rename(this.partial, this.file)), {
          file: this.file,
          size: this.size,
          hash: this.hash?.digest("hex") ?? "",
          referenced: checked.referenced,
          paths: checked.paths
        })
      })
    })
  }

  /** Stop: the check and the file stream destroyed, nothing left on disk. */
  async abort(): Promise<void> {
    this.feed.destroy()
    this.out.destroy()
    await closed(this.out)
    await Fs.rm(this.partial, { force: true })
    await Fs.rm(this.file, { force: true })
  }
}

/**
 * Read Node's request as it arrives (flowing, paused while the disk or the check is behind) into
 * `receiver`. A refusal stops reading and discards the rest as Node does for unread bodies — never
 * destroying the request, so the 4xx reaches the client (decision 0020); a client that goes away
 * is a defect (nobody is left to answer).
 */
const pumpNode = (source: Readable, receiver: Receiver): Effect.Effect<void, Refusal> =>
  Effect.async<void, Refusal>((resume) => {
    let done = false
    const detach = () => {
      source.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose)
    }
    const settle = (outcome: Effect.Effect<void, Refusal>) => {
      if (done) return
      done = true
      detach()
      resume(outcome)
    }
    const refuse = (outcome: Effect.Effect<never, Refusal>) => {
      settle(outcome)
      source.resume()
    }
    const onData = (chunk: Buffer) => {
      const verdict = receiver.accept(chunk)
      if (verdict === true) return
      if (verdict !== false) return refuse(verdict)
      source.pause()
      receiver.drained().then(() => {
        if (!done) source.resume()
      })
    }
    const onEnd = () => settle(Effect.void)
    const onError = (error: unknown) => settle(Effect.die(error))
    const onClose = () => {
      if (!source.readableEnded) settle(Effect.die(new Error("The client went away during the upload")))
    }
    source.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose)
    if (source.readableEnded) settle(Effect.void)
    return Effect.sync(() => {
      done = true
      detach()
    })
  })

/** The same for a stream of chunks (web runtimes, the Effect transport). */
const pumpStream = (stream: Stream.Stream<Uint8Array, PayloadTooLarge>, receiver: Receiver): Effect.Effect<void, Refusal> =>
  Stream.runForEach(stream, (chunk) => {
    const verdict = receiver.accept(chunk)
    if (verdict === true) return Effect.void
    if (verdict === false) return Effect.promise(() => receiver.drained())
    return verdict
  })

/**
 * Store an upload's body at `file` as it streams (never whole in memory), in one pass: counted
 * against `limits.maxUploadBytes` (413 past it), its SHA-256 computed when `hashed` (an idempotency
 * key), written in batches of up to 1 MiB, and checked beside the write (`inspect`: a 400 naming a
 * refused entry as soon as it arrives, decision 0483). The file appears under its name only once
 * the whole body passed; on a refusal, a failure, a client that went away or an interruption nothing
 * is left behind.
 */
export const receive = (body: UploadBody, file: string, limits: DeployLimits, hashed: boolean): Effect.Effect<Received, Refusal> =>
  Effect.flatMap(Effect.promise(() => Fs.mkdir(Path.dirname(file), { recursive: true })), () => {
    const receiver = new Receiver(file, limits, hashed)
    return (body._tag === "Node" ? pumpNode(body.source, receiver) : pumpStream(body.stream, receiver)).pipe(
      Effect.zipRight(receiver.finish()),
      Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : Effect.promise(() => receiver.abort()))
    )
  })
