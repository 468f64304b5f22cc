import autocannon from "autocannon"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import MiniSearch from "minisearch"
import { parseDocument, SearchIndex, type Document } from "@core/vault"
import { stem, words } from "../packages/vault/src/internal/text.js"
import { durations, type Figures, median } from "./Figures.js"

/**
 * The vault's search (decision 0400) over a generated vault of `BENCH_VAULT_DOCS`
 * (10,000) documents of about 1,000 words, beside MiniSearch 7 on the same documents and queries in
 * the same run (title ×3, headings ×2, the same stems, prefix on the last word, OR; MiniSearch
 * expands a prefix to every completion, ours to the most frequent within a budget, decision 0400): index build
 * time and retained heap of both, then p50/p95 per query (ours with its snippets, MiniSearch's top
 * 10 of its ranked list). Then `tools/call search_docs` over HTTP through the all-in-one server on
 * that vault at 16 connections, against `GET /health` of the same server.
 * Targets: p50 and p95 at least as fast as MiniSearch's; p95 under 1 ms.
 */
const DOCS = Number(process.env.BENCH_VAULT_DOCS ?? 10_000)
const WORDS = 1_000
const QUERIES = 500
const CONNECTIONS = 16
const CATEGORIES = ["services", "concepts", "cross-cutting", "guides", "rules", "decisions", "implementation"]

/** A small deterministic generator (mulberry32), so every run searches the same vault. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const next = random(16)
const SYLLABLES = ["ka", "lo", "ri", "ten", "gat", "way", "ser", "vi", "ce", "plat", "form", "job", "plan", "ro", "ute", "mi", "gra", "tion", "bil", "ling", "ac", "count", "sto", "re", "que", "ue"]
const SUFFIXES = ["", "", "", "s", "ed", "ing", "er"]
/** 20,000 made-up words and a Zipf-like pick: a few very common, a long tail of rare ones. */
const VOCABULARY = Array.from({ length: 20_000 }, (_, i) => {
  let word = ""
  for (let n = 2 + (i % 3); n > 0; n--) word += SYLLABLES[Math.floor(next() * SYLLABLES.length)]
  return `${word}${SUFFIXES[i % SUFFIXES.length]}`
})
const pick = () => VOCABULARY[Math.min(VOCABULARY.length - 1, Math.floor(Math.exp(next() * Math.log(VOCABULARY.length))) - 1)]
const sentence = (n: number) => Array.from({ length: n }, pick).join(" ")

const markdownOf = (i: number): string => {
  const sections = Array.from({ length: 5 }, () => `## ${sentence(3)}\n\n${sentence(WORDS / 5 - 3)}.\n`).join("\n")
  return `---\ntitle: ${sentence(4)}\ncategory: ${CATEGORIES[i % CATEGORIES.length]}\nsummary: ${sentence(12)}\n---\n# Document ${i}\n\n${sections}`
}

const gc = (() => {
  setFlagsFromString("--expose_gc")
  return runInNewContext("gc") as () => void
})()
const heap = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]
}

const time = (f: () => unknown): number => {
  const started = process.hrtime.bigint()
  f()
  return Number(process.hrtime.bigint() - started) / 1e6
}

/** The queries: one to three words from the vocabulary, a third of them with the last word cut to a prefix. */
const queries = Array.from({ length: QUERIES }, (_, i) => {
  const terms = Array.from({ length: 1 + (i % 3) }, pick)
  if (i % 3 === 0) {
    const last = terms[terms.length - 1]
    terms[terms.length - 1] = last.slice(0, Math.max(3, Math.ceil(last.length * 0.6)))
  }
  return terms.join(" ")
})

const measureSearch = async () => {
  const sources = Array.from({ length: DOCS }, (_, i) => markdownOf(i))
  const documents: Array<Document> = sources.map((source, i) => parseDocument(`generated/doc-${i}`, source))

  let before = heap()
  let ours: SearchIndex | undefined
  const oursBuild = time(() => (ours = SearchIndex.build(documents)))
  const oursHeap = heap() - before

  before = heap()
  const mini = new MiniSearch<{ id: number; title: string; headings: string; body: string; category: string }>({
    fields: ["title", "headings", "body"],
    storeFields: ["title"],
    tokenize: (text) => words(text),
    processTerm: (term) => stem(term),
    searchOptions: { boost: { title: 3, headings: 2 }, prefix: (_term, i, terms) => i === terms.length - 1 }
  })
  const miniBuild = time(() =>
    mini.addAll(documents.map((doc, id) => ({ id, title: doc.title, headings: doc.sections.map((s) => s.heading).join(" "), body: doc.body, category: doc.category ?? "" })))
  )
  const miniHeap = heap() - before

  const oursMs: Array<number> = []
  const miniMs: Array<number> = []
  let oursHits = 0
  let miniHits = 0
  for (let round = 0; round < 3; round++) {
    for (const query of queries) {
      // In turn, so that a busy machine weighs on both alike; the first round is the warm-up.
      const a = time(() => (oursHits += ours!.search(query, { limit: 10 }).length))
      const b = time(() => (miniHits += mini.search(query).slice(0, 10).length))
      if (round > 0) {
        oursMs.push(a)
        miniMs.push(b)
      }
    }
  }
  return { oursBuild, miniBuild, oursHeap, miniHeap, oursMs, miniMs, oursHits, miniHits, sources }
}

const bin = fileURLToPath(new URL("../packages/server/bin/core-server.mjs", import.meta.url))
const KEY = "bench-vault-static-key-0123456789"

/** `core-server start` on the generated vault; resolves with its port once `/ready` answers 200. */
const startServer = async (vaultDir: string, dataDir: string): Promise<{ child: ChildProcess; port: number }> => {
  const child = spawn(process.execPath, [bin, "start"], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "development", PORT: "0", CORE_DATA_DIR: dataDir, CORE_VAULT_DIR: vaultDir, CORE_STATIC_API_KEY: KEY, CORE_RATE_LIMIT_PER_MINUTE: "1000000", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
  const started = Date.now()
  for (;;) {
    if (child.exitCode !== null || Date.now() - started > 180_000) throw new Error(`core-server did not get ready:\n${output}`)
    const port = Number(/"port":(\d+)/.exec(output)?.[1] ?? /localhost:(\d+)/.exec(output)?.[1]) || undefined
    if (port !== undefined && (await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined))?.status === 200) return { child, port }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const measureHttp = async (sources: ReadonlyArray<string>) => {
  const work = mkdtempSync(join(tmpdir(), "bench-vault-"))
  const vaultDir = join(work, "vault")
  mkdirSync(vaultDir)
  sources.forEach((source, i) => writeFileSync(join(vaultDir, `doc-${i}.md`), source))
  const { child, port } = await startServer(vaultDir, join(work, "data"))
  try {
    const { duration, warmup } = durations()
    const run = async (options: Parameters<typeof autocannon>[0]) => {
      await autocannon({ ...options, duration: warmup })
      const result = await autocannon({ ...options, duration })
      return { rps: result.requests.average, p99: result.latency.p99, failures: result.errors + result.timeouts + result.non2xx }
    }
    const health = await run({ url: `http://127.0.0.1:${port}/health`, connections: CONNECTIONS })
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_docs", arguments: { query: queries[1] } } })
    const probe = await fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST", headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" }, body })
    const answer = (await probe.json()) as { result?: { content: Array<{ text: string }> } }
    if (probe.status !== 200 || JSON.parse(answer.result!.content[0].text).length === 0) throw new Error(`search_docs answered ${probe.status}`)
    const search = await run({
      url: `http://127.0.0.1:${port}/mcp`,
      connections: CONNECTIONS,
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", accept: "application/json" },
      body
    })
    return { health, search }
  } finally {
    child.kill("SIGTERM")
    await new Promise((resolve) => child.once("exit", resolve))
    rmSync(work, { recursive: true, force: true })
  }
}

export const run = async (): Promise<Figures> => {
  const s = await measureSearch()
  const oursP50 = median(s.oursMs)
  const oursP95 = percentile(s.oursMs, 95)
  const miniP50 = median(s.miniMs)
  const miniP95 = percentile(s.miniMs, 95)
  const http = await measureHttp(s.sources)
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
  const ms = (value: number) => value.toFixed(3)
  return {
    title: `vault search: ${DOCS} generated documents of ~${WORDS} words, ${QUERIES} queries ×2 (after a warm-up round); HTTP at ${CONNECTIONS} connections`,
    columns: ["measure", "vault (own BM25F)", "MiniSearch 7", "ratio (MiniSearch / vault)"],
    rows: [
      ["index build (ms)", Math.round(s.oursBuild), Math.round(s.miniBuild), (s.miniBuild / s.oursBuild).toFixed(2)],
      ["retained heap (MB)", mb(s.oursHeap), mb(s.miniHeap), (s.miniHeap / s.oursHeap).toFixed(2)],
      ["query p50 (ms)", ms(oursP50), ms(miniP50), (miniP50 / oursP50).toFixed(2)],
      ["query p95 (ms)", ms(oursP95), ms(miniP95), (miniP95 / oursP95).toFixed(2)],
      ["hits returned (top 10)", s.oursHits, s.miniHits, "-"],
      ["HTTP req/s: tools/call search_docs | GET /health", Math.round(http.search.rps), Math.round(http.health.rps), (http.search.rps / http.health.rps).toFixed(2)],
      ["HTTP p99 (ms): search_docs | /health", http.search.p99, http.health.p99, "-"]
    ],
    checks: [
      `query p50 ${oursP50 <= miniP50 ? "at least as fast as" : "SLOWER than"} MiniSearch's (${ms(oursP50)} vs ${ms(miniP50)} ms; ours includes the snippets)`,
      `query p95 ${oursP95 <= miniP95 ? "at least as fast as" : "SLOWER than"} MiniSearch's (${ms(oursP95)} vs ${ms(miniP95)} ms)`,
      `query p95 ${oursP95 < 1 ? "under" : "OVER"} 1 ms (${ms(oursP95)} ms)`,
      `tools/call search_docs at ${(http.search.rps / http.health.rps).toFixed(2)}× the throughput of GET /health; failures: search ${http.search.failures}, health ${http.health.failures}`
    ]
  }
}
