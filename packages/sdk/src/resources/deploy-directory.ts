/**
 * `client.deploy.upload(platformId, "<directory>")` in Node: the site directory hashed, the server
 * asked which hashes it lacks (`deployMissing`), and only those packed in a gzip tarball with a
 * `.core-manifest.json` naming the rest — the CLI's incremental flow (decisions 0487, 0491).
 *
 * Portable by construction: no module here is Node-only at import time. The file system is reached
 * at run time through `process.getBuiltinModule` (Node ≥ 20.16), so a browser or edge bundle carries
 * this code but never a `node:` import; SHA-256 is `crypto.subtle`, gzip `CompressionStream`.
 */

/** One file of a site: its path (`/`-separated, relative to the directory) and SHA-256. */
export interface SiteFile {
  readonly path: string
  readonly absolute: string
  readonly size: number
  readonly hash: string
}

/** The manifest the backend reads: `{ files: { path: sha256 } }`. */
export const MANIFEST_NAME = ".core-manifest.json"

const SKIPPED = new Set([".git", "node_modules", ".DS_Store", MANIFEST_NAME])

interface DirEntry {
  readonly name: string
  isDirectory(): boolean
  isFile(): boolean
}

interface NodeFs {
  readonly readdir: (path: string, options: { withFileTypes: true }) => Promise<Array<DirEntry>>
  readonly readFile: (path: string) => Promise<Uint8Array>
}

/** Node's `fs/promises`, or a clear error where there is no file system (a browser, an edge worker). */
const nodeFs = (): NodeFs => {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
  const fs = runtime?.getBuiltinModule?.("node:fs/promises") as NodeFs | undefined
  if (fs === undefined) {
    throw new TypeError("client.deploy.upload: a directory path needs Node 20.16 or later; pass the site's gzip tarball (bytes, a Blob or a stream) instead")
  }
  return fs
}

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, "0")).join("")

const join = (dir: string, name: string) => (dir.endsWith("/") || dir.endsWith("\\") ? `${dir}${name}` : `${dir}/${name}`)

/** Every regular file under `root` (symbolic links, `.git` and `node_modules` left out), sorted and hashed. */
export const scanDirectory = async (root: string): Promise<Array<SiteFile>> => {
  const fs = nodeFs()
  const files: Array<SiteFile> = []
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true })
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue
      const absolute = join(dir, entry.name)
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`
      if (entry.isDirectory()) await walk(absolute, path)
      else if (entry.isFile()) {
        const content = await fs.readFile(absolute)
        files.push({ path, absolute, size: content.byteLength, hash: hex(await crypto.subtle.digest("SHA-256", content as Uint8Array<ArrayBuffer>)) })
      }
    }
  }
  await walk(root, "")
  return files
}

const encoder = new TextEncoder()
const octal = (value: number, length: number): string => value.toString(8).padStart(length - 1, "0") + "\0"

/** One ustar header (POSIX.1-1988), as the CLI writes it; a name over 100 bytes goes in the prefix field. */
const header = (name: string, size: number): Uint8Array => {
  const block = new Uint8Array(512)
  const put = (text: string, offset: number, length: number) => block.set(encoder.encode(text).subarray(0, length), offset)
  let prefix = ""
  let base = name
  if (encoder.encode(name).byteLength > 100) {
    const cut = name.lastIndexOf("/", 155)
    if (cut <= 0 || encoder.encode(name.slice(cut + 1)).byteLength > 100) throw new RangeError(`The path ${name} is too long for a tar archive`)
    prefix = name.slice(0, cut)
    base = name.slice(cut + 1)
  }
  put(base, 0, 100)
  put(octal(0o644, 8), 100, 8)
  put(octal(0, 8), 108, 8)
  put(octal(0, 8), 116, 8)
  put(octal(size, 12), 124, 12)
  put(octal(0, 12), 136, 12)
  put("        ", 148, 8)
  put("0", 156, 1)
  put("ustar\0", 257, 6)
  put("00", 263, 2)
  put(prefix, 345, 155)
  let sum = 0
  for (const byte of block) sum += byte
  put(octal(sum, 7) + " ", 148, 8)
  return block
}

/** A gzip tarball of `files` (read from disk) and a manifest naming `kept` (files the server already has). */
export const packDirectory = async (files: ReadonlyArray<SiteFile>, kept: ReadonlyArray<SiteFile>): Promise<Uint8Array> => {
  const fs = files.length === 0 ? undefined : nodeFs()
  const parts: Array<Uint8Array> = []
  const add = (name: string, content: Uint8Array) => {
    parts.push(header(name, content.byteLength), content)
    const pad = (512 - (content.byteLength % 512)) % 512
    if (pad > 0) parts.push(new Uint8Array(pad))
  }
  for (const file of files) add(file.path, await fs!.readFile(file.absolute))
  if (kept.length > 0) add(MANIFEST_NAME, encoder.encode(JSON.stringify({ files: Object.fromEntries(kept.map((file) => [file.path, file.hash])) })))
  parts.push(new Uint8Array(1024))
  const gzip = new Blob(parts as Array<Uint8Array<ArrayBuffer>>).stream().pipeThrough(new CompressionStream("gzip"))
  return new Uint8Array(await new Response(gzip).arrayBuffer())
}

/** What packing a directory for an upload found: the archive, and how many files and bytes it carries. */
export interface PackedDirectory {
  readonly archive: Uint8Array
  readonly files: number
  readonly sent: number
  readonly kept: number
}

/** Scan `root`, ask `missing` which hashes the server lacks, and pack only those (with a manifest of the rest). */
export const packForUpload = async (
  root: string,
  missing: (hashes: ReadonlyArray<string>) => Promise<ReadonlyArray<string>>
): Promise<PackedDirectory> => {
  const files = await scanDirectory(root)
  if (files.length === 0) throw new RangeError(`client.deploy.upload: ${root} holds no file to deploy`)
  const lacking = new Set(await missing([...new Set(files.map((file) => file.hash))]))
  const sending = files.filter((file) => lacking.has(file.hash))
  const kept = files.filter((file) => !lacking.has(file.hash))
  return { archive: await packDirectory(sending, kept), files: files.length, sent: sending.length, kept: kept.length }
}
