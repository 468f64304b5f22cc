import { createHash } from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { type Configuration, Crypto } from "@core/kernel"
import { Effect } from "effect"

/**
 * Where the local edge keeps what it makes, and how it names it (decision 0292): under
 * `<CORE_DATA_DIR>/edge` (`objects/<edgeName>`, `pages/<project>`); with the data in memory (no
 * `CORE_DATA_DIR`), under one temporary directory per process, so the server that serves the pages
 * and the adapter that writes them agree.
 */
export const rootOf = (config: Pick<Configuration, "dataDir"> | undefined): string =>
  config?.dataDir === undefined ? Path.join(Os.tmpdir(), `core-edge-${process.pid}`) : Path.join(config.dataDir, "edge")

/** The directory of an object store. */
export const objectsDir = (root: string, edgeName: string): string => Path.join(root, "objects", safeSegment(edgeName))

/** The purpose the local edge's worker-secret key is derived for from `CORE_SECRET` (`Crypto.deriveKey`). */
export const WORKER_SECRETS_KEY_PURPOSE = "local-edge-worker-secrets"

/** The directory of a worker's secrets (one encrypted file per name; decision 0490). */
export const workerSecretsDir = (root: string, edgeName: string): string => Path.join(root, "secrets", safeSegment(edgeName))

/**
 * A worker's secrets as its runtime receives them (name → value), decrypted with the key the local
 * adapter derived (`Crypto.deriveKey(secret, WORKER_SECRETS_KEY_PURPOSE)`); none: `{}`.
 */
export const readWorkerSecrets = async (root: string, edgeName: string, key: Uint8Array): Promise<Record<string, string>> => {
  const dir = workerSecretsDir(root, edgeName)
  const names = await Fs.readdir(dir).catch(() => [] as Array<string>)
  const values: Record<string, string> = {}
  for (const name of names.filter((n) => /^[A-Z_][A-Z0-9_]*$/.test(n))) {
    const sealed = await Fs.readFile(Path.join(dir, name), "utf8")
    values[name] = await Effect.runPromise(Crypto.decrypt(key, sealed, `${edgeName}/${name}`))
  }
  return values
}

/** The directory a pages project is served from. */
export const pagesDir = (root: string, project: string): string => Path.join(root, "pages", safeSegment(project))

/** A path segment: the edge name lower-cased, anything but `a-z0-9-_` as `-` (never `..` nor `/`). */
export const safeSegment = (name: string): string => name.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^[-_]+/, "") || "x"

/** The longest PostgreSQL identifier. */
const IDENTIFIER_MAX = 63

/**
 * A PostgreSQL identifier `<prefix><name>`: the name lower-cased with anything but `a-z0-9_` as `_`;
 * one too long is cut and ends with 8 hexadecimal characters of the name's hash (still unique).
 */
export const identifier = (prefix: string, name: string): string => {
  const clean = name.toLowerCase().replace(/[^a-z0-9_]+/g, "_")
  if (prefix.length + clean.length <= IDENTIFIER_MAX) return `${prefix}${clean}`
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8)
  return `${prefix}${clean.slice(0, IDENTIFIER_MAX - prefix.length - 9)}_${hash}`
}

/** The schema of a `sql_db`. */
export const databaseSchema = (edgeName: string): string => identifier("edge_", edgeName)

/** The table (in `provisioning_edge`) of a `kv` namespace or a `queue`. */
export const resourceTable = (resourceType: "kv" | "queue", edgeName: string): string => identifier(`${resourceType}_`, edgeName)

/** The schema of the `kv` and `queue` tables. */
export const EDGE_SCHEMA = "provisioning_edge"

/** The project a request's `Host` names: `<project>.localhost[:port]` (one DNS label), else `undefined`. */
export const projectOfHost = (host: string | undefined): string | undefined => {
  if (host === undefined) return undefined
  const name = host.toLowerCase().replace(/:\d+$/, "")
  const match = /^([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)\.localhost\.?$/.exec(name)
  return match?.[1]
}

/**
 * The preview a request's `Host` names: `<branch>.<project>.localhost[:port]` (two DNS labels),
 * else `undefined` (issue 15: the command-line backend's preview deployments).
 */
export const previewOfHost = (host: string | undefined): { readonly project: string; readonly branch: string } | undefined => {
  if (host === undefined) return undefined
  const name = host.toLowerCase().replace(/:\d+$/, "")
  const match = /^([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)\.([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)\.localhost\.?$/.exec(name)
  return match === null ? undefined : { branch: match[1]!, project: match[2]! }
}

/** The directory a preview branch of a pages project is served from (a link the deploy backend points). */
export const previewDir = (root: string, project: string, branch: string): string =>
  Path.join(root, "previews", safeSegment(project), safeSegment(branch))

/** The URL a pages project is served at. */
export const pagesUrl = (project: string, port: number): string => `http://${project}.localhost:${port}/`

/**
 * The name of a feature's data on the local edge (decision 0313): `feature-<featureId>-<environment>-`
 * and 10 hexadecimal characters of the platform and entity, one per activation target. Its
 * database is the schema `databaseSchema(name)`, its object store `objectsDir(root, name)`, its
 * key-value namespace the table `resourceTable("kv", name)`.
 */
export const featureDataName = (feature: {
  readonly platformId: string
  readonly entityId: string
  readonly featureId: string
  readonly environment: string
}): string => {
  const hash = createHash("sha256").update(`${feature.platformId}\u0000${feature.entityId}`).digest("hex").slice(0, 10)
  return `feature-${safeSegment(feature.featureId).slice(0, 30)}-${safeSegment(feature.environment).slice(0, 8)}-${hash}`
}
