import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { ConflictError, CoreAbortError, NotFoundError, createClient, parseEventStream } from "../src/index.js"
import { envelope, startScriptServer, type ScriptServer } from "./script-server.js"

/**
 * `client.provisioning` against a scripted server (each method's method, path, query, body and
 * headers as `Provisioning.ProvisioningRoutes` declares them), and `jobs.watch` against a real local
 * HTTP server that streams Server-Sent Events, drops the connection and is resumed with `Last-Event-ID`.
 */
let server: ScriptServer | undefined
let closeStream: (() => Promise<void>) | undefined
afterEach(async () => {
  await server?.close()
  await closeStream?.()
  server = undefined
  closeStream = undefined
})

const base = "/api/v1/provisioning/api/v1/provision"
const JOB = "job_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"
const PLATFORM = "plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"
const job = (status: string, extra: object = {}) => ({
  jobId: JOB, type: "feature.activate", platformId: PLATFORM, status, attempts: 1, maxAttempts: 5, progress: 0, steps: [],
  payload: {}, result: null, error: null, runAt: "2026-01-01T00:00:00.000Z", startedAt: null, finishedAt: null,
  createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", ...extra
})
const jobPage = (data: Array<object>, nextCursor: string) => ({ data, pagination: { limit: 1, cursor: "", nextCursor, count: data.length } })

const event = (seq: number, kind: string, status: string, extra: object = {}) => ({
  seq, jobId: JOB, kind, status, from: null, attempt: 1, progress: 0, step: null, actor: null, reason: null,
  at: "2026-01-01T00:00:00.000Z", ...extra
})
const frame = (e: ReturnType<typeof event>) => `id: ${e.seq}\nevent: ${e.kind}\ndata: ${JSON.stringify(e)}\n\n`

describe("client.provisioning", () => {
  it("calls each job, dead-letter and job-creating route with its method, path, query, body and Idempotency-Key", async () => {
    server = await startScriptServer((request) => {
      if (request.url.includes("/dlq/")) return { status: 202, body: { jobId: "job_2", status: "QUEUED", entryId: "dlq_1" } }
      if (request.url.includes("/dlq")) return { status: 200, body: { data: [], pagination: { limit: 25, cursor: "" } } }
      if (request.url.endsWith("/cancel")) return { status: 200, body: { jobId: JOB, status: "FAILED", reason: "stop" } }
      if (request.url.includes("/jobs/") && request.method === "POST") return { status: 200, body: { jobId: JOB, status: "QUEUED" } }
      if (request.url.startsWith(`${base}/jobs?`)) return { status: 200, body: jobPage([job("QUEUED")], "") }
      if (request.url.includes("/jobs/")) return { status: 200, body: job("RUNNING") }
      if (request.url.endsWith("/auth/upgrade")) return { status: 202, body: { jobId: "job_3", platformId: PLATFORM } }
      return { status: 202, body: { jobId: "job_1", status: "QUEUED" } }
    })
    const { jobs, dlq, create } = createClient({ baseUrl: server.url, token: "t" }).provisioning
    expect((await jobs.get(JOB)).status).toBe("RUNNING")
    expect((await jobs.list({ platformId: PLATFORM, status: "QUEUED", limit: 10 })).data).toHaveLength(1)
    expect(await jobs.retry(JOB)).toEqual({ jobId: JOB, status: "QUEUED" })
    expect(await jobs.cancel(JOB, { reason: "stop" })).toEqual({ jobId: JOB, status: "FAILED", reason: "stop" })
    await jobs.forceComplete(JOB, { reason: "done by hand" })
    expect((await dlq.list({ limit: 5 })).pagination).toEqual({ limit: 25, cursor: "" })
    expect(await dlq.replay("dlq_1")).toEqual({ jobId: "job_2", status: "QUEUED", entryId: "dlq_1" })
    const feature = { platformId: PLATFORM, entityId: "ent_1", featureId: "billing", featureVersion: "1.0.0", environment: "prod" } as const
    expect(await create.featureActivate(feature, { idempotencyKey: "key-1" })).toEqual({ jobId: "job_1", status: "QUEUED" })
    await create.platform({ platformId: PLATFORM, planTier: "starter", billingEmail: "b@example.com" })
    await create.platformDeprovision({ platformId: PLATFORM })
    await create.featureDeactivate({ platformId: PLATFORM, entityId: "ent_1", featureId: "billing", environment: "prod" })
    await create.stackActivate({ platformId: PLATFORM, stackId: "web-app", stackVersion: "1.0.0" })
    await create.stackDeactivate({ platformId: PLATFORM, stackInstanceId: "stk_1" })
    await create.onboard({ onboardingId: "onb_1", platformName: "Acme", slug: "acme", userId: "usr_1" })
    await create.app({ platformId: PLATFORM, stackId: "web-app", appName: "shop", appType: "app" })
    await create.domain({ platformId: PLATFORM, customHostname: "shop.example.com", targetDnsRecordId: "dns_1" })
    expect(await create.authUpgrade({ platformId: PLATFORM })).toEqual({ jobId: "job_3", platformId: PLATFORM })
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET ${base}/jobs/${JOB}`,
      `GET ${base}/jobs?platformId=${PLATFORM}&status=QUEUED&limit=10`,
      `POST ${base}/jobs/${JOB}/retry`,
      `POST ${base}/jobs/${JOB}/cancel`,
      `POST ${base}/jobs/${JOB}/force-complete`,
      `GET ${base}/dlq?limit=5`,
      `POST ${base}/dlq/dlq_1/replay`,
      `POST ${base}/feature/activate`,
      `POST ${base}/platform`,
      `POST ${base}/platform/deprovision`,
      `POST ${base}/feature/deactivate`,
      `POST ${base}/stack/activate`,
      `POST ${base}/stack/deactivate`,
      `POST ${base}/onboard`,
      `POST ${base}/app/create`,
      `POST ${base}/domain/add`,
      `POST ${base}/auth/upgrade`
    ])
    expect(server.requests[2]!.body).toBe("")
    expect(JSON.parse(server.requests[3]!.body)).toEqual({ reason: "stop" })
    expect(JSON.parse(server.requests[4]!.body)).toEqual({ reason: "done by hand" })
    expect(JSON.parse(server.requests[7]!.body)).toEqual(feature)
    expect(server.requests[7]!.headers["idempotency-key"]).toBe("key-1")
    expect(server.requests[8]!.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("all() walks every page of the jobs' nested nextCursor and of the dead letters' cursor", async () => {
    server = await startScriptServer([
      { status: 200, body: jobPage([job("FAILED", { jobId: "job_a" })], "c2") },
      { status: 200, body: jobPage([job("FAILED", { jobId: "job_b" })], "") },
      { status: 200, body: { data: [{ entryId: "dlq_a" }], pagination: { limit: 1, cursor: "d2" } } },
      { status: 200, body: { data: [{ entryId: "dlq_b" }], pagination: { limit: 1, cursor: "" } } }
    ])
    const { jobs, dlq } = createClient({ baseUrl: server.url, token: "t" }).provisioning
    const seen: Array<string> = []
    for await (const one of jobs.all({ status: "FAILED", limit: 1 })) seen.push(one.jobId)
    for await (const entry of dlq.all({ limit: 1 })) seen.push(entry.entryId)
    expect(seen).toEqual(["job_a", "job_b", "dlq_a", "dlq_b"])
    expect(server.requests.map((r) => r.url)).toEqual([
      `${base}/jobs?status=FAILED&limit=1`,
      `${base}/jobs?status=FAILED&limit=1&cursor=c2`,
      `${base}/dlq?limit=1`,
      `${base}/dlq?limit=1&cursor=d2`
    ])
  })

  it("answers 404 and 409 INVALID_STATE as NotFoundError and ConflictError", async () => {
    server = await startScriptServer([
      { status: 404, body: envelope("NOT_FOUND", "Job not found", "req_1") },
      { status: 409, body: envelope("INVALID_STATE", "Only a FAILED job can be retried", "req_2") }
    ])
    const { jobs } = createClient({ baseUrl: server.url, token: "t" }).provisioning
    await expect(jobs.get(JOB)).rejects.toBeInstanceOf(NotFoundError)
    const conflict = await jobs.retry(JOB).catch((error: unknown) => error)
    expect(conflict).toBeInstanceOf(ConflictError)
    expect((conflict as ConflictError).code).toBe("INVALID_STATE")
  })
})

/** A real HTTP server: `handle` writes each connection's stream; every request is recorded. */
const startStreamServer = async (handle: (req: IncomingMessage, res: ServerResponse, index: number) => void) => {
  const requests: Array<IncomingMessage> = []
  const http = createServer((req, res) => handle(req, res, requests.push(req) - 1))
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  const previous = closeStream
  closeStream = async () => {
    await previous?.()
    await new Promise<void>((resolve) => {
      http.closeAllConnections()
      http.close(() => resolve())
    })
  }
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, requests }
}

const sse = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })

describe("client.provisioning.jobs.watch", () => {
  it("yields the events as they stream, skips keep-alive comments, resumes a dropped stream with Last-Event-ID and stops at the terminal event", async () => {
    const e1 = event(1, "status", "RUNNING", { from: "QUEUED" })
    const e2 = event(2, "step", "RUNNING", { step: { name: "edge", status: "running", startedAt: "x", finishedAt: null, error: null } })
    const e3 = event(3, "progress", "RUNNING", { progress: 0.5 })
    const e4 = event(4, "status", "COMPLETED", { from: "RUNNING", progress: 1 })
    const stream = await startStreamServer((req, res, index) => {
      if (req.url?.endsWith("/events") !== true) {
        res.writeHead(200, { "content-type": "application/json" })
        return res.end(JSON.stringify(job("RUNNING")))
      }
      sse(res)
      if (index === 0) {
        // The first connection: two events, a keep-alive, half of a third event in a CRLF stream, then the socket dies.
        res.write(`: keep-alive\r\n\r\n${frame(e1).replaceAll("\n", "\r\n")}`)
        setTimeout(() => res.write(`retry: 20\n${frame(e2)}: keep-alive\n\nid: 3\nevent: progress\ndata: {"seq":3`), 30)
        setTimeout(() => res.destroy(), 80)
        return
      }
      // Resumed after event 2: the rest, then the server ends the stream.
      setTimeout(() => res.end(`${frame(e3)}${frame(e4)}`), 30)
    })
    const seen: Array<unknown> = []
    for await (const one of createClient({ baseUrl: stream.url, token: "t" }).provisioning.jobs.watch(JOB, { reconnectDelayMs: 5000 })) seen.push(one)
    expect(seen).toEqual([e1, e2, e3, e4])
    const urls = stream.requests.map((r) => r.url)
    expect(urls).toEqual([`${base}/jobs/${JOB}/events`, `${base}/jobs/${JOB}`, `${base}/jobs/${JOB}/events`])
    expect(stream.requests[0]!.headers["last-event-id"]).toBeUndefined()
    expect(stream.requests[0]!.headers.accept).toBe("text/event-stream")
    expect(stream.requests[0]!.headers.authorization).toBe("Bearer t")
    expect(stream.requests[2]!.headers["last-event-id"]).toBe("2")
  })

  it("ends when the stream closes on a job that is already over (nothing after Last-Event-ID)", async () => {
    const stream = await startStreamServer((req, res) => {
      if (req.url?.endsWith("/events") === true) {
        sse(res)
        return res.end()
      }
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(job("FAILED")))
    })
    const seen: Array<unknown> = []
    for await (const one of createClient({ baseUrl: stream.url, token: "t" }).provisioning.jobs.watch(JOB, { lastEventId: 9 })) seen.push(one)
    expect(seen).toEqual([])
    expect(stream.requests[0]!.headers["last-event-id"]).toBe("9")
    expect(stream.requests.map((r) => r.url)).toEqual([`${base}/jobs/${JOB}/events`, `${base}/jobs/${JOB}`])
  })

  it("stops with CoreAbortError when its signal aborts an idle stream, and throws the service's 404", async () => {
    const stream = await startStreamServer((req, res) => {
      if (req.url?.includes("job_missing") === true) {
        res.writeHead(404, { "content-type": "application/json" })
        return res.end(JSON.stringify(envelope("NOT_FOUND", "Job not found", "req_1")))
      }
      sse(res)
      res.write(frame(event(1, "status", "RUNNING")))
    })
    const { jobs } = createClient({ baseUrl: stream.url, token: "t" }).provisioning
    const controller = new AbortController()
    const seen: Array<unknown> = []
    const watching = (async () => {
      for await (const one of jobs.watch(JOB, { signal: controller.signal })) {
        seen.push(one)
        setTimeout(() => controller.abort(new Error("enough")), 20)
      }
    })()
    await expect(watching).rejects.toBeInstanceOf(CoreAbortError)
    expect(seen).toHaveLength(1)
    await expect(jobs.watch("job_missing").next()).rejects.toBeInstanceOf(NotFoundError)
  })

  it("keeps a stream open past the client's timeout, which bounds only the wait for the answer's headers", async () => {
    const events = [event(1, "status", "RUNNING"), event(2, "progress", "RUNNING", { progress: 0.5 }), event(3, "status", "COMPLETED", { progress: 1 })]
    const stream = await startStreamServer((_req, res) => {
      sse(res)
      res.flushHeaders()
      events.forEach((e, i) => setTimeout(() => res.write(frame(e)), 150 * (i + 1)))
    })
    const seen: Array<number> = []
    for await (const one of createClient({ baseUrl: stream.url, token: "t", timeout: 100 }).provisioning.jobs.watch(JOB)) seen.push(one.seq)
    expect(seen).toEqual([1, 2, 3])
    expect(stream.requests).toHaveLength(1)
    // A server that sends its headers only with its first event (Node's http does) gets `openTimeout` (60 s by default), not the client's 100 ms.
    const late = await startStreamServer((_req, res) => {
      sse(res)
      setTimeout(() => res.end(frame(events[2]!)), 200)
    })
    const lateSeen: Array<number> = []
    for await (const one of createClient({ baseUrl: late.url, token: "t", timeout: 100 }).provisioning.jobs.watch(JOB)) lateSeen.push(one.seq)
    expect(lateSeen).toEqual([3])
  })

  it("parseEventStream: multi-line data, unnamed events, fields without a colon, and a CR split across chunks", async () => {
    const chunks = ["data: a\ndata:b\r", "\nid\n\nevent: x\ndata\n\ndata: no end"]
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk))
        controller.close()
      }
    })
    const events: Array<unknown> = []
    for await (const one of parseEventStream(body)) events.push(one)
    expect(events).toEqual([
      { id: "", event: "message", data: "a\nb", retry: undefined },
      { id: "", event: "x", data: "", retry: undefined }
    ])
  })

  it("parseEventStream: a block without data is yielded only when it sets an id (a position), and the id carries over", async () => {
    const text = ": open\nid: evt_1\n\n: keep-alive\n\nevent: y\n\ndata: {}\n\n"
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text))
        controller.close()
      }
    })
    const events: Array<unknown> = []
    for await (const one of parseEventStream(body)) events.push(one)
    expect(events).toEqual([
      { id: "evt_1", event: "message", data: "", retry: undefined },
      { id: "evt_1", event: "message", data: "{}", retry: undefined }
    ])
  })
})
