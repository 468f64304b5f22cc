import { readdir, readFile, stat } from "node:fs/promises"
import { join, relative, sep } from "node:path"
import { type Document, ParseFailure, parseDocument } from "./Document.js"
import { Snapshot } from "./Snapshot.js"

/** The most bytes a vault file may have; a larger one is skipped with a warning. */
export const MAX_FILE_BYTES = 2 * 1024 * 1024

interface Cached {
  readonly mtimeMs: number
  readonly size: number
  readonly doc: Document
}

/** Every `.md` file under `dir` (dot folders and `node_modules` left out), as absolute paths. */
const markdownFiles = async (dir: string): Promise<Array<string>> => {
  const found: Array<string> = []
  const walk = async (folder: string): Promise<void> => {
    let entries
    try {
      entries = await readdir(folder, { withFileTypes: true })
    } catch (error) {
      if (folder === dir) throw error
      return // removed while we walked
    }
    await Promise.all(entries.map(async (entry) => {
      if (entry.name.startsWith(".") || entry.name === "node_modules") return
      const full = join(folder, entry.name)
      if (entry.isDirectory()) await walk(full)
      else if (entry.isFile() && entry.name.toLowerCase().endsWith(".md")) found.push(full)
    }))
  }
  await walk(dir)
  return found
}

/**
 * Reads a vault folder into snapshots. It remembers each file's parse by modification time and size,
 * so a reload after one file changed parses that file only (the index is rebuilt whole).
 */
export class Loader {
  private cache = new Map<string, Cached>()

  constructor(readonly dir: string) {}

  /**
   * Read every Markdown file of the folder. A file that cannot be read or parsed is left out with a
   * warning naming it (`warnings`), never a failure; a missing folder is an empty vault with a warning.
   */
  async load(): Promise<Snapshot> {
    const warnings: Array<string> = []
    let files: Array<string>
    try {
      files = await markdownFiles(this.dir)
    } catch (error) {
      this.cache = new Map()
      return new Snapshot([], [`vault folder ${this.dir} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`])
    }
    const next = new Map<string, Cached>()
    const documents: Array<Document> = []
    await Promise.all(files.map(async (file) => {
      const name = relative(this.dir, file)
      const path = name.split(sep).join("/").replace(/\.md$/i, "")
      try {
        const info = await stat(file)
        if (info.size > MAX_FILE_BYTES) {
          warnings.push(`skipped ${name}: larger than ${MAX_FILE_BYTES} bytes`)
          return
        }
        const known = this.cache.get(file)
        const doc = known !== undefined && known.mtimeMs === info.mtimeMs && known.size === info.size
          ? known.doc
          : parseDocument(path, await readFile(file, "utf8"))
        next.set(file, { mtimeMs: info.mtimeMs, size: info.size, doc })
        documents.push(doc)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return // removed while we read
        warnings.push(`skipped ${name}: ${error instanceof ParseFailure ? error.message : String(error)}`)
      }
    }))
    this.cache = next
    warnings.sort()
    return new Snapshot(documents, warnings)
  }
}
