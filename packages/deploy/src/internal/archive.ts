import { createHash, randomUUID } from "node:crypto"
import { createReadStream, createWriteStream } from "node:fs"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { Transform } from "node:stream"
import { pipeline } from "node:stream/promises"
import { createGunzip } from "node:zlib"
import * as Tar from "tar-stream"

/** An archive that cannot be deployed; `entry` names the offending entry when there is one. */
export class ArchiveRefused extends Error {
  constructor(message: string, readonly entry?: string) {
    super(message)
  }
}

/** The limits an archive is checked against while it streams. */
export interface ArchiveLimits {
  /** The most regular files (decision 0483). @default 20000 */
  readonly maxFiles: number
  /** The most bytes the archive may inflate to: a gzip bomb is stopped here, while streaming. */
  readonly maxUnpackedBytes: number
}

/** The file at the archive's root that names files the server already has: `{ files: { path: sha256 } }`. */
export const MANIFEST_NAME = ".core-manifest.json"
const MANIFEST_MAX_BYTES = 4 * 1024 * 1024
const HASH = /^[0-9a-f]{64}$/

/** What an archive holds once checked: each site path and the SHA-256 of its content. */
export interface Unpacked {
  readonly files: Record<string, string>
  /** Paths named by the manifest (content not in the archive). */
  readonly referenced: Record<string, string>
  readonly unpackedBytes: number
}

/**
 * A site path of an entry: relative, `/`-separated, no `..` or empty segment, no NUL or backslash;
 * `undefined` for an entry that escapes the root (absolute, `..`) — refused by the caller.
 */
export const sitePath = (name: string): string | undefined => {
  if (name.includes("\0") || name.includes("\\") || name.startsWith("/") || /^[A-Za-z]:/.test(name)) return undefined
  const segments = name.split("/").filter((segment) => segment !== "" && segment !== ".")
  if (segments.some((segment) => segment === "..")) return undefined
  if (segments.length === 0) return ""
  const path = segments.join("/")
  return path.length > 1024 ? undefined : path
}

/** The path a content hash is stored at. */
export const blobPath = (blobs: string, hash: string): string => Path.join(blobs, hash.slice(0, 2), hash)

const isGzip = async (file: string): Promise<boolean> => {
  const handle = await Fs.open(file, "r")
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(2), 0, 2, 0)
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b
  } finally {
    await handle.close()
  }
}

const refusedTypes: Readonly<Record<string, string>> = {
  symlink: "a symbolic link",
  link: "a hard link",
  "character-device": "a character device",
  "block-device": "a block device",
  fifo: "a named pipe",
  "contiguous-file": "a contiguous file"
}

/**
 * Check a stored gzip tarball while streaming it once and move its files into the content store
 * `blobs` (by SHA-256). Entries escaping the root, links, devices, more than `maxFiles` files or an
 * inflated size past `maxUnpackedBytes` are refused naming the entry; a refused archive leaves
 * nothing behind (its files are written to a staging directory first and only moved on success).
 */
export const unpack = async (file: string, blobs: string, limits: ArchiveLimits): Promise<Unpacked> => {
  const stat = await Fs.stat(file)
  if (stat.size === 0) throw new ArchiveRefused("The upload is empty: send a gzip tarball of the built site")
  if (!(await isGzip(file))) throw new ArchiveRefused("The upload is not gzip: send a gzip tarball (application/gzip)")
  const staging = Path.join(blobs, "..", "staging", randomUUID())
  await Fs.mkdir(staging, { recursive: true })
  const files: Record<string, string> = {}
  let referenced: Record<string, string> = {}
  let count = 0
  let inflated = 0
  const staged: Array<string> = []
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      inflated += chunk.byteLength
      if (inflated > limits.maxUnpackedBytes) {
        callback(new ArchiveRefused(`The archive inflates past ${limits.maxUnpackedBytes} bytes`))
      } else callback(null, chunk)
    }
  })
  const extract = Tar.extract()
  const consume = (async () => {
    for await (const entry of extract) {
      const checked = await checkEntry(entry, count, limits)
      if (checked.kind === "skipped") continue
      if (checked.kind === "manifest") {
        referenced = checked.referenced
        continue
      }
      const path = checked.path
      count += 1
      const hash = createHash("sha256")
      const target = Path.join(staging, String(count))
      const hasher = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          hash.update(chunk)
          callback(null, chunk)
        }
      })
      await pipeline(entry, hasher, createWriteStream(target))
      const digest = hash.digest("hex")
      staged.push(`${target}\n${digest}`)
      files[path] = digest
    }
  })()
  try {
    await Promise.all([pipeline(createReadStream(file), createGunzip(), counter, extract), consume])
  } catch (error) {
    extract.destroy()
    await Fs.rm(staging, { recursive: true, force: true })
    if (error instanceof ArchiveRefused) throw error
    const code = (error as { code?: string }).code
    if (typeof code === "string" && (code.startsWith("Z_") || code === "ERR_STREAM_PREMATURE_CLOSE")) {
      throw new ArchiveRefused("The upload is not a valid gzip tarball (corrupt or truncated)")
    }
    if (error instanceof Error && /tar|header|Unexpected end/i.test(error.message)) {
      throw new ArchiveRefused(`The upload is not a valid tarball: ${error.message.slice(0, 200)}`)
    }
    throw error
  }
  for (const line of staged) {
    const [from, digest] = line.split("\n") as [string, string]
    const to = blobPath(blobs, digest)
    await Fs.mkdir(Path.dirname(to), { recursive: true })
    await Fs.rename(from, to)
  }
  await Fs.rm(staging, { recursive: true, force: true })
  for (const path of Object.keys(files)) delete referenced[path]
  return { files, referenced, unpackedBytes: inflated }
}

/** What the streaming check found: the manifest's references (minus files the archive holds) and the files' paths. */
export interface Inspected {
  readonly referenced: Record<string, string>
  readonly paths: ReadonlySet<string>
}

/**
 * What gunzip hands on at once while checking: 1 MiB instead of zlib's 16 KiB makes 64 times fewer
 * trips through the counter and the tar parser (most of the check's cost on an upload).
 */
const INSPECT_CHUNK = 1024 * 1024

/** Let an entry's content go by unread (paused streams count nothing; this is what `inspect` keeps). */
const skip = (entry: { once(event: string, listener: (...args: Array<any>) => void): unknown; resume(): unknown }): Promise<void> =>
  new Promise((resolve, reject) => {
    entry.once("end", resolve)
    entry.once("close", resolve)
    entry.once("error", reject)
    entry.resume()
  })

/**
 * Check a gzip tarball while it streams in (`source`), keeping nothing: the same refusals as
 * `unpack` (escaping entries, links, devices, too many files, a bomb), and the manifest's
 * references. The upload route runs it beside the write to storage, so a refused archive answers
 * its 4xx as soon as the offending entry arrives; the deployment job unpacks later.
 */
export const inspect = async (source: NodeJS.ReadableStream, limits: ArchiveLimits): Promise<Inspected> => {
  let referenced: Record<string, string> = {}
  const paths = new Set<string>()
  let count = 0
  let inflated = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      inflated += chunk.byteLength
      if (inflated > limits.maxUnpackedBytes) callback(new ArchiveRefused(`The archive inflates past ${limits.maxUnpackedBytes} bytes`))
      else callback(null, chunk)
    }
  })
  const extract = Tar.extract()
  const consume = (async () => {
    for await (const entry of extract) {
      const checked = await checkEntry(entry, count, limits)
      if (checked.kind === "skipped") continue
      if (checked.kind === "manifest") {
        referenced = checked.referenced
        continue
      }
      const path = checked.path
      count += 1
      paths.add(path)
      await skip(entry)
    }
  })()
  try {
    await Promise.all([pipeline(source, createGunzip({ chunkSize: INSPECT_CHUNK }), counter, extract), consume])
  } catch (error) {
    extract.destroy()
    throw refusal(error)
  }
  for (const path of paths) delete referenced[path]
  return { referenced, paths }
}

const SKIPPED_TYPES = new Set(["directory", "pax-header", "pax-global-header", "gnu-long-path", "gnu-long-link-path"])

/**
 * The checks `unpack` and `inspect` share for one entry: a path inside the site's root, a type that
 * may be deployed (directories and headers are drained and skipped), a file name, the manifest read
 * within its bound, and the file count (`count` files before this one) within `limits.maxFiles`.
 */
const checkEntry = async (
  entry: AsyncIterable<unknown> & { readonly header: { readonly name: string; readonly type?: string | null | undefined } },
  count: number,
  limits: ArchiveLimits
): Promise<
  { readonly kind: "skipped" } | { readonly kind: "manifest"; readonly referenced: Record<string, string> } | { readonly kind: "file"; readonly path: string }
> => {
  const name = entry.header.name
  const type: string = entry.header.type ?? "file"
  const path = sitePath(name)
  if (path === undefined) throw new ArchiveRefused(`The entry ${JSON.stringify(name)} escapes the site's root`, name)
  if (type !== "file") {
    if (!SKIPPED_TYPES.has(type)) {
      throw new ArchiveRefused(`The entry ${JSON.stringify(name)} is ${refusedTypes[type] ?? `of type ${type}`}: only files and directories are deployed`, name)
    }
    for await (const _ of entry) void _
    return { kind: "skipped" }
  }
  if (path === "") throw new ArchiveRefused(`The entry ${JSON.stringify(name)} has no file name`, name)
  if (path === MANIFEST_NAME) {
    const chunks: Array<Buffer> = []
    let size = 0
    for await (const chunk of entry as AsyncIterable<Buffer>) {
      size += chunk.byteLength
      if (size > MANIFEST_MAX_BYTES) throw new ArchiveRefused(`The manifest is larger than ${MANIFEST_MAX_BYTES} bytes`, name)
      chunks.push(chunk)
    }
    return { kind: "manifest", referenced: parseManifest(Buffer.concat(chunks).toString("utf8")) }
  }
  if (count + 1 > limits.maxFiles) throw new ArchiveRefused(`The archive holds more than ${limits.maxFiles} files (at ${JSON.stringify(name)})`, name)
  return { kind: "file", path }
}

/** A stream failure as the refusal it means (corrupt gzip, a truncated tarball), else as it is. */
const refusal = (error: unknown): unknown => {
  if (error instanceof ArchiveRefused) return error
  const code = (error as { code?: string }).code
  if (typeof code === "string" && (code.startsWith("Z_") || code === "ERR_STREAM_PREMATURE_CLOSE")) {
    return new ArchiveRefused("The upload is not a valid gzip tarball (corrupt or truncated)")
  }
  if (error instanceof Error && /tar|header|Unexpected end/i.test(error.message)) {
    return new ArchiveRefused(`The upload is not a valid tarball: ${error.message.slice(0, 200)}`)
  }
  return error
}

const parseManifest = (text: string): Record<string, string> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new ArchiveRefused(`${MANIFEST_NAME} is not JSON`, MANIFEST_NAME)
  }
  const files = (parsed as { files?: unknown } | null)?.files
  if (typeof files !== "object" || files === null || Array.isArray(files)) {
    throw new ArchiveRefused(`${MANIFEST_NAME} must be { "files": { "<path>": "<sha256>" } }`, MANIFEST_NAME)
  }
  const out: Record<string, string> = {}
  for (const [name, hash] of Object.entries(files)) {
    const path = sitePath(name)
    if (path === undefined || path === "") throw new ArchiveRefused(`The manifest's path ${JSON.stringify(name.slice(0, 200))} escapes the site's root`, name.slice(0, 200))
    if (typeof hash !== "string" || !HASH.test(hash)) throw new ArchiveRefused(`The manifest's hash of ${JSON.stringify(path)} is not a SHA-256`, path)
    out[path] = hash
  }
  return out
}

/** Whether the content store holds a hash. */
export const hasBlob = (blobs: string, hash: string): Promise<boolean> =>
  Fs.stat(blobPath(blobs, hash)).then((stat) => stat.isFile(), () => false)
