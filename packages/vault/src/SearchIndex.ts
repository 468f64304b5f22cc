import type { Document } from "./Document.js"
import { stem, terms, words } from "./internal/text.js"

/** One search hit: the document, its BM25 score and a snippet with the matched words in `**bold**`. */
export interface Hit {
  readonly path: string
  readonly title: string
  readonly snippet: string
  readonly score: number
}

/** Search options. */
export interface SearchOptions {
  /** Only documents of this category. */
  readonly category?: string | undefined
  /** @default 10 */
  readonly limit?: number | undefined
}

/** Field weights of BM25F: a word in the title counts three times, in a heading twice (decision 0400). */
const TITLE_BOOST = 3
const HEADING_BOOST = 2
const K1 = 1.2
const B = 0.75
/** How much a word found only by completing the query's last word counts. */
const PREFIX_WEIGHT = 0.5
/** The most completions the last word expands to (the most frequent first). */
const PREFIX_EXPANSIONS = 16
const SNIPPET_CHARS = 160

interface Posting {
  readonly docs: Int32Array
  /** Field-weighted term frequency per document. */
  readonly tfs: Float32Array
}

interface Entry {
  readonly path: string
  readonly title: string
  readonly category: string | undefined
  /** The body as plain text, for snippets, and lower-cased (found once, at build). */
  readonly text: string
  readonly lower: string
  readonly length: number
}

/**
 * An inverted index with BM25F ranking over a vault's documents: title, headings and body, Porter
 * stems, the last query word completed as a prefix. Built once per vault snapshot (a reload builds a
 * new one), so it is immutable and shared by every request.
 */
export class SearchIndex {
  private readonly entries: Array<Entry> = []
  private readonly postings = new Map<string, Posting>()
  /** The postings while documents are added, typed arrays once sealed. */
  private building = new Map<string, { readonly docs: Array<number>; readonly tfs: Array<number> }>()
  private sortedTerms: Array<string> = []
  private averageLength = 1
  private scores = new Float64Array(0)
  /** Per document, BM25's length normalization `k1 · (1 − b + b · length / average)`. */
  private norms = new Float64Array(0)

  /** Build the index of `documents`. */
  static build(documents: Iterable<Pick<Document, "path" | "title" | "category" | "body" | "sections">>): SearchIndex {
    const index = new SearchIndex()
    for (const doc of documents) index.add(doc)
    index.seal()
    return index
  }

  /** The number of documents. */
  get size(): number {
    return this.entries.length
  }

  private add(doc: Pick<Document, "path" | "title" | "category" | "body" | "sections">): void {
    const id = this.entries.length
    const counts = new Map<string, number>()
    const count = (text: string, weight: number): number => {
      const found = terms(text)
      for (const term of found) counts.set(term, (counts.get(term) ?? 0) + weight)
      return found.length
    }
    count(doc.title, TITLE_BOOST)
    for (const section of doc.sections) count(section.heading, HEADING_BOOST)
    const length = count(doc.body, 1)
    for (const [term, tf] of counts) {
      let posting = this.building.get(term)
      if (posting === undefined) {
        posting = { docs: [], tfs: [] }
        this.building.set(term, posting)
      }
      posting.docs.push(id)
      posting.tfs.push(tf)
    }
    this.entries.push({ path: doc.path, title: doc.title, category: doc.category, ...plainAndLower(doc.body), length: Math.max(length, 1) })
  }

  private seal(): void {
    for (const [term, posting] of this.building) {
      this.postings.set(term, { docs: Int32Array.from(posting.docs), tfs: Float32Array.from(posting.tfs) })
    }
    this.building = new Map()
    this.sortedTerms = [...this.postings.keys()].sort()
    this.averageLength = this.entries.reduce((sum, entry) => sum + entry.length, 0) / Math.max(this.entries.length, 1)
    this.scores = new Float64Array(this.entries.length)
    this.norms = Float64Array.from(this.entries, (entry) => K1 * (1 - B + B * entry.length / this.averageLength))
  }

  /**
   * The indexed terms starting with `prefix`, the most frequent first: at most `PREFIX_EXPANSIONS`,
   * and no more than twice the vault's size in postings together.
   */
  private completions(prefix: string): Array<string> {
    let low = 0
    let high = this.sortedTerms.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (this.sortedTerms[mid] < prefix) low = mid + 1
      else high = mid
    }
    const found: Array<string> = []
    for (let i = low; i < this.sortedTerms.length && this.sortedTerms[i].startsWith(prefix); i++) found.push(this.sortedTerms[i])
    found.sort((a, b) => this.postings.get(b)!.docs.length - this.postings.get(a)!.docs.length)
    // A short prefix of common words would score most of the vault many times over: the most
    // frequent completions only, up to twice the vault's size in postings (at least one).
    const budget = 2 * this.entries.length
    const kept: Array<string> = []
    let postings = 0
    for (const term of found) {
      const df = this.postings.get(term)!.docs.length
      if (kept.length === PREFIX_EXPANSIONS || (kept.length > 0 && postings + df > budget)) break
      kept.push(term)
      postings += df
    }
    return kept
  }

  /** The query's terms and their weights: every word's stem, and the last word's completions. */
  private queryTerms(query: string): Map<string, number> {
    const weights = new Map<string, number>()
    const raw = words(query)
    raw.forEach((word, i) => {
      const stemmed = stem(word)
      weights.set(stemmed, Math.max(weights.get(stemmed) ?? 0, 1))
      // The last word may be unfinished (typed as you search): complete it, unless a space follows it.
      if (i === raw.length - 1 && word.length >= 2 && !/\s$/.test(query)) {
        for (const term of this.completions(word)) {
          if (!weights.has(term)) weights.set(term, PREFIX_WEIGHT)
        }
      }
    })
    return weights
  }

  /** The best `limit` of `ids` by their current score, best first. */
  private top(ids: ReadonlyArray<number>, limit: number, accept: ((id: number) => boolean) | undefined): Array<number> {
    const scores = this.scores
    const top: Array<number> = []
    for (const id of ids) {
      if (accept !== undefined && !accept(id)) continue
      const score = scores[id]
      if (top.length < limit) {
        top.push(id)
        if (top.length === limit) top.sort((a, b) => scores[b] - scores[a])
      } else if (score > scores[top[limit - 1]]) {
        let at = limit - 1
        while (at > 0 && scores[top[at - 1]] < score) {
          top[at] = top[at - 1]
          at--
        }
        top[at] = id
      }
    }
    if (top.length < limit) top.sort((a, b) => scores[b] - scores[a])
    return top
  }

  /**
   * Rank the documents for `query` (BM25F, any word may match), best first.
   *
   * @example index.search("gateway rate limit", { category: "services", limit: 5 })
   */
  search(query: string, options: SearchOptions = {}): Array<Hit> {
    const limit = options.limit ?? 10
    const weights = this.queryTerms(query)
    const n = this.entries.length
    if (weights.size === 0 || n === 0 || limit <= 0) return []
    const scores = this.scores
    const norms = this.norms
    const category = options.category
    const accept = category === undefined ? undefined : (id: number) => this.entries[id].category === category
    // Each term's most a document can get from it (tf / (tf + norm) < 1), the rarest first.
    const terms: Array<{ readonly posting: Posting; readonly scale: number }> = []
    for (const [term, weight] of weights) {
      const posting = this.postings.get(term)
      if (posting === undefined) continue
      const df = posting.docs.length
      terms.push({ posting, scale: Math.log(1 + (n - df + 0.5) / (df + 0.5)) * weight * (K1 + 1) })
    }
    terms.sort((a, b) => b.scale - a.scale)
    const total = terms.reduce((sum, term) => sum + term.scale, 0)
    let remaining = total
    const touched: Array<number> = []
    // Once the rest of the terms together cannot lift an unseen document into the top `limit`,
    // only the documents that can still make it are scored further, by binary search (MaxScore).
    let candidates: Array<number> | undefined
    for (const { posting, scale } of terms) {
      remaining -= scale
      const { docs, tfs } = posting
      if (candidates === undefined) {
        for (let i = 0; i < docs.length; i++) {
          const id = docs[i]
          const tf = tfs[i]
          if (scores[id] === 0) touched.push(id)
          scores[id] += scale * tf / (tf + norms[id])
        }
        // Pruning needs the rest to weigh less than the best score so far can be (the terms done).
        if (remaining > 0 && touched.length > limit && total - remaining > remaining) {
          const best = this.top(touched, limit, accept)
          const threshold = best.length === limit ? scores[best[limit - 1]] : 0
          if (threshold > remaining) {
            candidates = touched.filter((id) => scores[id] + remaining >= threshold && (accept === undefined || accept(id)))
          }
        }
      } else {
        for (const id of candidates) {
          const i = indexOf(docs, id)
          if (i !== -1) scores[id] += scale * tfs[i] / (tfs[i] + norms[id])
        }
      }
    }
    const top = this.top(candidates ?? touched, limit, accept)
    // The query's own stems first: a completion is looked for only before the first exact match.
    const stems = new Set([...weights].sort((a, b) => b[1] - a[1]).map(([term]) => term))
    const hits = top.map((id) => ({
      path: this.entries[id].path,
      title: this.entries[id].title,
      snippet: snippetOf(this.entries[id].text, stems, this.entries[id].lower),
      score: Math.round(scores[id] * 1000) / 1000
    }))
    for (const id of touched) scores[id] = 0
    return hits
  }
}

/** Where `id` is in a posting's ascending document ids, or -1. */
const indexOf = (docs: Int32Array, id: number): number => {
  let low = 0
  let high = docs.length - 1
  while (low <= high) {
    const mid = (low + high) >>> 1
    const at = docs[mid]
    if (at === id) return mid
    if (at < id) low = mid + 1
    else high = mid - 1
  }
  return -1
}

const WORD = /[\p{L}\p{N}]+/gu
const WORD_AT = /[\p{L}\p{N}]+/uy
const WORD_CHAR = /[\p{L}\p{N}]/u

/** Plain text of Markdown for a snippet: no fences' markers, link targets, emphasis or heading marks. */
export const plain = (markdown: string): string =>
  markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*_>#|]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()

/** How many occurrences of a stem's root are looked at before giving up on it. */
const OCCURRENCES = 24

const plainAndLower = (markdown: string) => {
  const text = plain(markdown)
  return { text, lower: text.toLowerCase() }
}

/**
 * Where the first word whose stem is one of `stems` starts, or -1. Each stem's root (without the
 * `e` or `i` step 1 may add) is found with `indexOf` on the lower-cased text, and the word there
 * stemmed to confirm it: no pass over every word of a long document.
 */
const firstMatch = (text: string, lower: string, stems: ReadonlySet<string>): number => {
  let first = -1
  for (const wanted of stems) {
    const root = wanted.length > 3 && /[ei]$/.test(wanted) ? wanted.slice(0, -1) : wanted
    let from = 0
    for (let seen = 0; seen < OCCURRENCES; seen++) {
      const at = lower.indexOf(root, from)
      if (at === -1 || (first !== -1 && at >= first)) break
      from = at + 1
      if (at > 0 && WORD_CHAR.test(text[at - 1])) continue
      WORD_AT.lastIndex = at
      const word = WORD_AT.exec(lower)
      if (word !== null && stem(word[0]) === wanted) {
        first = at
        break
      }
    }
  }
  return first
}

/**
 * About `SNIPPET_CHARS` characters of a plain text around the first matched word, with every matched
 * word in the window in `**bold**`; the opening of the text when no word matches.
 */
export const snippetOf = (text: string, stems: ReadonlySet<string>, lower: string = text.toLowerCase()): string => {
  const first = firstMatch(text, lower, stems)
  if (first === -1) return text.length <= SNIPPET_CHARS ? text : `${text.slice(0, SNIPPET_CHARS).replace(/\s\S*$/, "")}…`
  let start = Math.max(0, first - 40)
  if (start > 0) {
    const space = text.indexOf(" ", start)
    start = space === -1 || space > first ? start : space + 1
  }
  let end = Math.min(text.length, start + SNIPPET_CHARS)
  if (end < text.length) {
    const space = text.lastIndexOf(" ", end)
    if (space > first) end = space
  }
  const window = text.slice(start, end).replace(WORD, (word) => (stems.has(stem(word.toLowerCase())) ? `**${word}**` : word))
  return `${start > 0 ? "…" : ""}${window}${end < text.length ? "…" : ""}`
}
