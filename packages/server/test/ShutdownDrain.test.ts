import * as http from "node:http"
import { mkdtempSync, rmSync } from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { launch, logLines, migratedDataDir, ready, type Running } from "./ServerProcess.js"
import { eventually } from "@core/kernel/testing/poll"

const SLOW = 180_000
const N = 8
const work = mkdtempSync(join(tmpdir(), "core-drain-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

interface Answer {
  readonly status: number
  readonly connection: string | undefined
  readonly body: string
}

const start = async (name: string): Promise<{ server: Running; base: string }> => {
  const server = launch(["start"], {
    PORT: "0",
    CORE_DATA_DIR: await migratedDataDir(join(work, name)),
    CORE_RATE_LIMIT_AUTH_PER_MINUTE: "1000"
  })
  return { server, base: await ready(server) }
}

/** Poll the server's JSON log until it has logged `message` (the trigger the tests wait on, never a delay). */
const logged = async (server: Running, message: string, timeoutMs = 60_000): Promise<void> => {
  await eventually(() => logLines(server.output.stdout).some((line) => line.message === message), (seen) => seen, {
    message: () => `core-server to log ${JSON.stringify(message)}\n${server.output.stdout}`,
    timeout: timeoutMs,
    interval: 10
  })
}

/** Read one HTTP answer from a raw socket (the server closes the connection after it). */
const answerOn = (socket: net.Socket): Promise<Answer> =>
  new Promise((resolve, reject) => {
    let text = ""
    socket.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
    socket.on("error", reject)
    socket.on("close", () => {
      const [head = "", body = ""] = text.split("\r\n\r\n")
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)
      const connection = /\r\nconnection: ([^\r]+)/i.exec(head)?.[1]?.toLowerCase()
      resolve({ status, connection, body })
    })
  })

const connect = (base: string): Promise<net.Socket> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(base).port), "127.0.0.1", () => resolve(socket))
    socket.once("error", reject)
  })

const signUpText = (email: string, keepAlive: boolean): string => {
  const body = JSON.stringify({ email, password: "correct horse battery staple", name: "Drain" })
  return `POST /api/v1/iam/api/auth/sign-up/email HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: ${keepAlive ? "keep-alive" : "close"}\r\n\r\n${body}`
}

const emailOf = (answer: Answer): string | undefined => (JSON.parse(answer.body) as { user?: { email: string } }).user?.email

describe("core-server start: SIGTERM answers every request whose connection was open before it", () => {
  it(`${N} connections the kernel completed while the process could not accept them (the accept queue)`, async () => {
    const { server, base } = await start("queue")
    try {
      // Stopped, the process accepts nothing: the connections wait in the kernel's accept queue
      // with their requests in their buffers, and SIGTERM arrives before any of them is accepted.
      server.child.kill("SIGSTOP")
      const sockets = await Promise.all(Array.from({ length: N }, () => connect(base)))
      const answers = sockets.map(answerOn)
      await Promise.all(sockets.map((socket, index) =>
        new Promise<void>((resolve) => socket.write(signUpText(`queue-${index}@example.com`, true), () => resolve()))
      ))
      server.child.kill("SIGTERM")
      server.child.kill("SIGCONT")
      const answered = await Promise.all(answers)
      expect(answered.map((answer) => [answer.status, answer.connection, emailOf(answer)])).toEqual(
        Array.from({ length: N }, (_, index) => [200, "close", `queue-${index}@example.com`])
      )
      const finished = await server.exited
      expect([finished.code, logLines(finished.stdout).filter((line) => line.level === "error")]).toEqual([0, []])
    } finally {
      server.child.kill("SIGCONT")
      server.child.kill("SIGKILL")
    }
  }, SLOW)

  it(`${N} connections opened before the signal that send their requests after it`, async () => {
    const { server, base } = await start("idle-new")
    try {
      const sockets = await Promise.all(Array.from({ length: N }, () => connect(base)))
      const answers = sockets.map(answerOn)
      server.child.kill("SIGTERM")
      await logged(server, "shutting down")
      for (const [index, socket] of sockets.entries()) socket.write(signUpText(`late-${index}@example.com`, true))
      const answered = await Promise.all(answers)
      expect(answered.map((answer) => [answer.status, answer.connection, emailOf(answer)])).toEqual(
        Array.from({ length: N }, (_, index) => [200, "close", `late-${index}@example.com`])
      )
      expect((await server.exited).code).toBe(0)
    } finally {
      server.child.kill("SIGKILL")
    }
  }, SLOW)

  it("a keep-alive connection with a request in flight gets its answer with Connection: close", async () => {
    const { server, base } = await start("keep-alive")
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const first = await fetchWith(agent, `${base}/health`)
      expect([first.status, first.connection]).toEqual([200, "keep-alive"])
      const body = JSON.stringify({ email: "kept@example.com", password: "correct horse battery staple", name: "Kept" })
      let send: () => void = () => undefined
      const accepted = new Promise<void>((resolve) => (send = resolve))
      const answered = new Promise<Answer>((resolve, reject) => {
        const request = http.request(`${base}/api/v1/iam/api/auth/sign-up/email`, {
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), expect: "100-continue" }
        })
        request.on("continue", () => send())
        request.on("response", (response) => collect(response).then(resolve, reject))
        request.on("error", reject)
        void accepted.then(async () => {
          server.child.kill("SIGTERM")
          await logged(server, "shutting down")
          request.end(body)
        })
      })
      const answer = await answered
      expect([answer.status, answer.connection, emailOf(answer)]).toEqual([200, "close", "kept@example.com"])
      expect((await server.exited).code).toBe(0)
    } finally {
      agent.destroy()
      server.child.kill("SIGKILL")
    }
  }, SLOW)
})

const collect = (response: http.IncomingMessage): Promise<Answer> =>
  new Promise((resolve) => {
    let text = ""
    response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk)).on("end", () =>
      resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body: text })
    )
  })

const fetchWith = (agent: http.Agent, url: string): Promise<Answer> =>
  new Promise((resolve, reject) => {
    http.get(url, { agent }, (response) => void collect(response).then(resolve)).on("error", reject)
  })
