import * as Os from "node:os"
import * as Path from "node:path"
import { CoreConfig } from "@core/kernel"
import { LocalEdge } from "@core/provisioning"
import { Config, Context, Effect, Layer } from "effect"

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
