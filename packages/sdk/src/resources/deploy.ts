import type { Deploy } from "@core/contracts"
import { buildPath, CliRouteRefs } from "@core/contracts/routes"
import { type CallResult, routeCaller } from "../call.js"
import { withProtocolCode } from "../errors.js"
import type { Transport } from "../transport.js"
import { packForUpload } from "./deploy-directory.js"

/** Per-call options of the command-line backend's methods. */
export interface DeployCallOptions {
  readonly signal?: AbortSignal
}

/** What an upload sends besides its bytes. */
export interface UploadOptions extends DeployCallOptions {
  /** `x-core-deploy-branch`: another branch than the default is a preview. */
  readonly branch?: string
  /** The same key and bytes answer the first deployment; other bytes 409. @default a new key per upload */
  readonly idempotencyKey?: string
  /** @default 300000 (5 minutes) */
  readonly timeout?: number
}

/** A gzip tarball of a built site: bytes, a `Blob`, or a `ReadableStream` (streamed, never retried). */
export type SiteArchive = Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array>

/**
 * What `upload` takes: a site's gzip tarball, or — in Node — the path of the built site's directory,
 * uploaded incrementally (only the files the server lacks, with a manifest of the rest).
 */
export type SiteSource = SiteArchive | string

const Routes: typeof CliRouteRefs = CliRouteRefs

/**
 * The command-line backend (`client.deploy`, `/api/v1/cli`), one method per route of
 * `Deploy.CliRoutes` (named in each comment). The owner and admins write; members read.
 */
export interface DeployClient {
  /** `createRepo`: the platform's source repository (`created`, then `exists`). */
  readonly createRepo: (input: Deploy.CreateRepoRequest, options?: DeployCallOptions) => Promise<CallResult<typeof Routes.createRepo>>
  /** `getRepo`: the repository record (clone URL, default branch, pages project). */
  readonly repo: (platformId: string, options?: DeployCallOptions) => Promise<CallResult<typeof Routes.getRepo>>
  readonly features: {
    /** `activateFeature`: on the default entity, recorded in `core.json`. */
    readonly activate: (platformId: string, input: Deploy.CliActivateFeatureRequest, options?: DeployCallOptions) => Promise<CallResult<typeof Routes.activateFeature>>
    /** `deactivateFeature`. */
    readonly deactivate: (platformId: string, input: Deploy.CliDeactivateFeatureRequest, options?: DeployCallOptions) => Promise<CallResult<typeof Routes.deactivateFeature>>
  }
  /**
   * `deploy` (upload form): a gzip tarball of the built site, or in Node a directory path (hashed,
   * `deployMissing` asked, only what the server lacks packed: an unchanged site sends no file).
   *
   * @example
   * const { deploymentId } = await client.deploy.upload(platformId, "./dist", { branch: "preview-1" })
   */
  readonly upload: (platformId: string, source: SiteSource, options?: UploadOptions) => Promise<Deploy.DeployAccepted>
  /** `deploy` (no-body form): the repository's default branch (or `branch`). */
  readonly fromRepository: (platformId: string, options?: Omit<UploadOptions, "idempotencyKey">) => Promise<Deploy.DeployAccepted>
  /** `deployMissing`: which of these SHA-256 hashes the server lacks. */
  readonly missing: (platformId: string, hashes: ReadonlyArray<string>, options?: DeployCallOptions) => Promise<CallResult<typeof Routes.deployMissing>>
  /** `buildStatus`: the latest deployment. */
  readonly buildStatus: (platformId: string, options?: DeployCallOptions) => Promise<CallResult<typeof Routes.buildStatus>>
  readonly deployments: {
    /** `listDeployments`: one page, newest first. */
    readonly list: (platformId: string, query?: { readonly cursor?: string; readonly limit?: number }, options?: DeployCallOptions) => Promise<CallResult<typeof Routes.listDeployments>>
    /** Every deployment, newest first, page after page. */
    readonly all: (platformId: string, options?: DeployCallOptions) => AsyncGenerator<Deploy.DeploymentRecord, void, undefined>
    /** `getDeployment`. */
    readonly get: (platformId: string, deploymentId: string, options?: DeployCallOptions) => Promise<CallResult<typeof Routes.getDeployment>>
    /** `rollback`: make an earlier successful deployment live again. */
    readonly rollback: (platformId: string, deploymentId: string, options?: DeployCallOptions) => Promise<CallResult<typeof Routes.rollback>>
  }
  readonly secrets: {
    /** `setSecrets`: name → value; `results` per name. */
    readonly set: (platformId: string, secrets: Readonly<Record<string, string>>, options?: DeployCallOptions) => Promise<CallResult<typeof Routes.setSecrets>>
    /** `listSecrets`: names and `lastSetAt`, never values. */
    readonly list: (platformId: string, options?: DeployCallOptions) => Promise<CallResult<typeof Routes.listSecrets>>
  }
}

const UPLOAD_TIMEOUT = 300_000

/** `client.deploy` on `transport`. */
export const deploy = (transport: Transport): DeployClient => {
  const { call, pages } = routeCaller(transport)
  const deployPath = (platformId: string) => `${Routes.deploy.prefix}${buildPath(Routes.deploy.path, { platformId })}`
  const send = async (platformId: string, body: SiteArchive | undefined, options: UploadOptions): Promise<Deploy.DeployAccepted> => {
    try {
      return await transport.request<Deploy.DeployAccepted>("POST", deployPath(platformId), {
        ...(body === undefined ? { idempotencyKey: false } : { body, ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }) }),
        headers: {
          ...(body === undefined ? {} : { "content-type": "application/gzip" }),
          ...(options.branch === undefined ? {} : { "x-core-deploy-branch": options.branch })
        },
        timeout: options.timeout ?? UPLOAD_TIMEOUT,
        ...(options.signal === undefined ? {} : { signal: options.signal })
      })
    } catch (error) {
      throw withProtocolCode(error)
    }
  }
  return {
    createRepo: (input, options) => call(Routes.createRepo, { body: input }, options),
    repo: (platformId, options) => call(Routes.getRepo, { params: { platformId } }, options),
    features: {
      activate: (platformId, input, options) => call(Routes.activateFeature, { params: { platformId }, body: input }, options),
      deactivate: (platformId, input, options) => call(Routes.deactivateFeature, { params: { platformId }, body: input }, options)
    },
    upload: async (platformId, source, options = {}) => {
      if (typeof source !== "string") return send(platformId, source, options)
      const signal = options.signal === undefined ? {} : { signal: options.signal }
      const packed = await packForUpload(source, async (hashes) =>
        (await call(Routes.deployMissing, { params: { platformId }, body: { hashes: [...hashes] } }, signal)).missing)
      return send(platformId, packed.archive, options)
    },
    fromRepository: (platformId, options = {}) => send(platformId, undefined, options),
    missing: (platformId, hashes, options) => call(Routes.deployMissing, { params: { platformId }, body: { hashes: [...hashes] } }, options),
    buildStatus: (platformId, options) => call(Routes.buildStatus, { params: { platformId } }, options),
    deployments: {
      list: (platformId, query, options) => call(Routes.listDeployments, { params: { platformId }, ...(query === undefined ? {} : { query }) }, options),
      all: (platformId, options) => pages(Routes.listDeployments, { params: { platformId } }, options) as AsyncGenerator<Deploy.DeploymentRecord, void, undefined>,
      get: (platformId, deploymentId, options) => call(Routes.getDeployment, { params: { platformId, deploymentId } }, options),
      rollback: (platformId, deploymentId, options) => call(Routes.rollback, { params: { platformId, deploymentId } }, options)
    },
    secrets: {
      set: (platformId, secrets, options) => call(Routes.setSecrets, { params: { platformId }, body: { secrets: { ...secrets } } }, options),
      list: (platformId, options) => call(Routes.listSecrets, { params: { platformId } }, options)
    }
  }
}
