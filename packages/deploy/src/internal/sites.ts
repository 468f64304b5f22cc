import { randomUUID } from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { blobPath } from "./archive.js"

/** Materialize a manifest into `dir`: each file a hard link to its content (a copy across file systems). */
export const materialize = async (manifest: Record<string, string>, blobs: string, dir: string): Promise<void> => {
  await Fs.rm(dir, { recursive: true, force: true })
  await Fs.mkdir(dir, { recursive: true })
  for (const [path, hash] of Object.entries(manifest)) {
    const target = Path.join(dir, ...path.split("/"))
    if (!target.startsWith(dir + Path.sep)) continue
    await Fs.mkdir(Path.dirname(target), { recursive: true })
    await Fs.link(blobPath(blobs, hash), target).catch((error: { code?: string }) =>
      error.code === "EXDEV" || error.code === "EPERM" ? Fs.copyFile(blobPath(blobs, hash), target) : Promise.reject(error))
  }
}

/**
 * Point `link` at `dir` at once: a new symbolic link renamed over the old one (atomic on POSIX), so
 * a request sees the old site or the new one, never a mix. A directory in its place (the edge's
 * placeholder pages) is removed first.
 */
export const pointAt = async (link: string, dir: string): Promise<void> => {
  await Fs.mkdir(Path.dirname(link), { recursive: true })
  const present = await Fs.lstat(link).catch(() => undefined)
  if (present !== undefined && !present.isSymbolicLink()) await Fs.rm(link, { recursive: true, force: true })
  // A name of its own: two rollbacks in the same millisecond must not share it (EEXIST was a 500).
  const temporary = `${link}.${randomUUID()}.tmp`
  await Fs.symlink(dir, temporary, "dir")
  await Fs.rename(temporary, link)
}
