import { createHash } from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { gzipSync } from "node:zlib"

/** One file of a site: its path (`/`-separated, relative), size and SHA-256. */
export interface SiteFile {
  readonly path: string
  readonly absolute: string
  readonly size: number
  readonly hash: string
}

/** The name of the manifest the backend reads (`{ files: { path: sha256 } }`). */
export const MANIFEST_NAME = ".core-manifest.json"

const SKIPPED = new Set([".git", "node_modules", ".DS_Store", MANIFEST_NAME])

/** Every regular file under `root` (symbolic links and `.git` left out), each hashed. */
export const scanSite = async (root: string): Promise<Array<SiteFile>> => {
  const files: Array<SiteFile> = []
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await Fs.readdir(dir, { withFileTypes: true })
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue
      const absolute = Path.join(dir, entry.name)
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`
      if (entry.isDirectory()) await walk(absolute, path)
      else if (entry.isFile()) {
        const content = await Fs.readFile(absolute)
        files.push({ path, absolute, size: content.byteLength, hash: createHash("sha256").update(content).digest("hex") })
      }
    }
  }
  await walk(root, "")
  return files
}

const octal = (value: number, length: number): string => value.toString(8).padStart(length - 1, "0") + "\0"

/** One ustar header (POSIX.1-1988); a name over 100 bytes goes in the prefix field. */
const header = (name: string, size: number): Buffer => {
  const block = Buffer.alloc(512)
  let prefix = ""
  let base = name
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf("/", 155)
    if (cut <= 0 || Buffer.byteLength(name.slice(cut + 1)) > 100) throw new Error(`The path ${name} is too long for a tar archive`)
    prefix = name.slice(0, cut)
    base = name.slice(cut + 1)
  }
  block.write(base, 0, 100, "utf8")
  block.write(octal(0o644, 8), 100, "ascii")
  block.write(octal(0, 8), 108, "ascii")
  block.write(octal(0, 8), 116, "ascii")
  block.write(octal(size, 12), 124, "ascii")
  block.write(octal(0, 12), 136, "ascii")
  block.write("        ", 148, "ascii")
  block.write("0", 156, "ascii")
  block.write("ustar\0", 257, "ascii")
  block.write("00", 263, "ascii")
  block.write(prefix, 345, 155, "utf8")
  let sum = 0
  for (const byte of block) sum += byte
  block.write(octal(sum, 7) + " ", 148, "ascii")
  return block
}

/**
 * A gzip tarball of `files` (read from disk) and a manifest naming `kept` (files the server has
 * already: only their hashes travel). A small tar writer (decision 0487): the CLI's bundle carries
 * no archive library.
 */
export const packSite = async (files: ReadonlyArray<SiteFile>, kept: ReadonlyArray<SiteFile>): Promise<Buffer> => {
  const parts: Array<Buffer> = []
  const add = (name: string, content: Buffer) => {
    parts.push(header(name, content.byteLength), content)
    const pad = (512 - (content.byteLength % 512)) % 512
    if (pad > 0) parts.push(Buffer.alloc(pad))
  }
  for (const file of files) add(file.path, await Fs.readFile(file.absolute))
  if (kept.length > 0) add(MANIFEST_NAME, Buffer.from(JSON.stringify({ files: Object.fromEntries(kept.map((file) => [file.path, file.hash])) })))
  parts.push(Buffer.alloc(1024))
  return gzipSync(Buffer.concat(parts))
}
