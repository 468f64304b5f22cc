import { describe, expect, it } from "vitest"
import { parseDocument, SearchIndex } from "../src/index.js"

/**
 * The pruned ranking (MaxScore: once the remaining terms cannot lift an unseen document into the
 * top, only candidates are scored further) gives the same top results as scoring every document,
 * on a generated vault with very common and rare words, with and without a category.
 */
let seed = 7
const next = () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const SYLLABLES = ["ka", "lo", "ri", "ten", "gat", "way", "ser", "vi", "plat", "form", "job", "plan", "mi", "tion"]
const VOCABULARY = Array.from({ length: 3000 }, (_, i) => {
  let word = ""
  for (let n = 2 + (i % 3); n > 0; n--) word += SYLLABLES[Math.floor(next() * SYLLABLES.length)]
  return word
})
const pick = () => VOCABULARY[Math.min(VOCABULARY.length - 1, Math.floor(Math.exp(next() * Math.log(VOCABULARY.length))) - 1)]
const sentence = (n: number) => Array.from({ length: n }, pick).join(" ")
const CATEGORIES = ["services", "concepts", "guides"]
const documents = Array.from({ length: 600 }, (_, i) =>
  parseDocument(`d/${i}`, `---\ntitle: ${sentence(3)}\ncategory: ${CATEGORIES[i % 3]}\n---\n## ${sentence(2)}\n\n${sentence(150)}\n`))
const index = SearchIndex.build(documents)

describe("SearchIndex pruning", () => {
  it("ranks the same top 10 as exhaustive scoring", () => {
    let compared = 0
    for (let q = 0; q < 200; q++) {
      const query = Array.from({ length: 1 + (q % 4) }, pick).join(" ") + (q % 5 === 0 ? "" : " ")
      for (const category of [undefined, "concepts"]) {
        const pruned = index.search(query, { limit: 10, category })
        const exhaustive = index.search(query, { limit: documents.length, category }).slice(0, 10)
        expect(pruned.map((hit) => hit.score), query).toEqual(exhaustive.map((hit) => hit.score))
        expect(new Set(pruned.map((hit) => hit.path)), query).toEqual(new Set(exhaustive.map((hit) => hit.path)))
        compared += pruned.length
      }
    }
    expect(compared).toBeGreaterThan(2000)
  })
})
