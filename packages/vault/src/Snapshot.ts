import type { Document } from "./Document.js"
import { SearchIndex } from "./SearchIndex.js"

/** A link between two documents, as `get_related_docs` answers it. */
export interface Link {
  readonly path: string
  readonly title: string
  readonly direction: "outbound" | "inbound"
  /** Whether the target exists in the vault (an outbound link may point nowhere). */
  readonly exists: boolean
}

/**
 * One immutable state of a vault: its documents by path, the search index and the link graph. A
 * reload builds a new snapshot and swaps it in whole, so a request never sees half a reload.
 */
export class Snapshot {
  readonly documents: ReadonlyMap<string, Document>
  readonly index: SearchIndex
  private readonly inbound: ReadonlyMap<string, ReadonlyArray<string>>

  constructor(documents: Iterable<Document>, readonly warnings: ReadonlyArray<string> = []) {
    const sorted = [...documents].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    this.documents = new Map(sorted.map((doc) => [doc.path, doc]))
    this.index = SearchIndex.build(sorted)
    const inbound = new Map<string, Array<string>>()
    for (const doc of sorted) {
      for (const target of doc.links) {
        const from = inbound.get(target) ?? []
        from.push(doc.path)
        inbound.set(target, from)
      }
    }
    this.inbound = inbound
  }

  /** The documents of a category, by path. */
  ofCategory(category: string): Array<Document> {
    return [...this.documents.values()].filter((doc) => doc.category === category)
  }

  /** A document's outbound links, then its inbound ones, each with the other end's title. */
  related(path: string): Array<Link> {
    const doc = this.documents.get(path)
    if (doc === undefined) return []
    const titleOf = (other: string) => this.documents.get(other)?.title ?? other
    return [
      ...doc.links.map((target): Link => ({ path: target, title: titleOf(target), direction: "outbound", exists: this.documents.has(target) })),
      ...(this.inbound.get(path) ?? []).map((source): Link => ({ path: source, title: titleOf(source), direction: "inbound", exists: true }))
    ]
  }
}
