import { gzipSync } from "node:zlib"
import * as Tar from "tar-stream"

/** One entry of a test tarball: a file (with content) or another kind, named as given. */
export interface Entry {
  readonly name: string
  readonly content?: string | Buffer
  readonly type?: "file" | "directory" | "symlink" | "link" | "character-device" | "block-device" | "fifo"
  readonly linkname?: string
}

/** A gzip tarball of `entries`, in memory (test sites are small). */
export const tarball = async (entries: ReadonlyArray<Entry>): Promise<Buffer> => {
  const pack = Tar.pack()
  const chunks: Array<Buffer> = []
  const done = new Promise<void>((resolve, reject) => {
    pack.on("data", (chunk) => {
      chunks.push(chunk as Buffer)
    })
    pack.on("end", () => resolve())
    pack.on("error", reject)
  })
  for (const entry of entries) {
    const type = entry.type ?? "file"
    if (type === "file") pack.entry({ name: entry.name }, entry.content ?? "")
    else pack.entry({ name: entry.name, type, ...(entry.linkname === undefined ? {} : { linkname: entry.linkname }) })
  }
  pack.finalize()
  await done
  return gzipSync(Buffer.concat(chunks))
}
