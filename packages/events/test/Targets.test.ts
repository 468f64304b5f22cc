import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"
import { fetch } from "undici"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Signing, Targets } from "../src/index.js"

/**
 * The checks inside each attempt's connection: the delivery pool's DNS lookup refuses a name that
 * resolves to a loopback address (`localhost`), so the address checked is the one connected to;
 * redirects are not followed. And the signatures `standardwebhooks` accepts.
 */
describe("delivery targets", () => {
  let port = 0
  let hits = 0
  const server = createServer((request, response) => {
    hits++
    if (request.url === "/redirect") return void response.writeHead(307, { location: "http://169.254.169.254/latest" }).end()
    response.writeHead(200).end("ok")
  })
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it("refuses a name that resolves to 127.0.0.1 when it connects, naming the variable, unless private targets are allowed", async () => {
    const strict = Targets.deliveryAgent({ allowHttp: true, allowPrivate: false }, 5_000)
    const error = await fetch(`http://localhost:${port}/hook`, { method: "POST", dispatcher: strict }).then(() => undefined, (e: unknown) => e as { cause?: Error })
    expect(error?.cause?.message).toMatch(/resolves to (127\.0\.0\.1|::1).*CORE_WEBHOOKS_ALLOW_PRIVATE=1/)
    expect(hits).toBe(0)
    expect(Targets.precheck(`http://127.0.0.1:${port}/`, { allowHttp: true, allowPrivate: false })._tag).toBe("Left")
    expect(Targets.precheck(`http://127.0.0.1:${port}/`, { allowHttp: false, allowPrivate: true })._tag).toBe("Left")

    const open = Targets.deliveryAgent({ allowHttp: true, allowPrivate: true }, 5_000)
    const response = await fetch(`http://localhost:${port}/redirect`, { method: "POST", dispatcher: open, redirect: "manual" })
    expect(response.status).toBe(307)
    expect(hits).toBe(1)
    await Promise.all([strict.close(), open.close()])
  })

  it("classifies private, loopback, link-local and mapped addresses", () => {
    for (const address of ["127.0.0.1", "10.0.0.1", "172.20.1.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:10.0.0.1", "100.64.0.1"]) {
      expect(Targets.isPrivateAddress(address), address).toBe(true)
    }
    for (const address of ["93.184.215.14", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"]) expect(Targets.isPrivateAddress(address), address).toBe(false)
  })

  it("signs as standardwebhooks verifies, with every secret during a rotation", async () => {
    const [current, previous] = [Signing.newSecret(), Signing.newSecret()]
    const body = JSON.stringify({ id: "evt_1", type: "webhook.test" })
    const timestamp = Math.floor(Date.now() / 1000)
    const headers = await Signing.headersFor([current, previous], "evt_1", timestamp, body)
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2)
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
    expect(() => new Webhook(Signing.newSecret()).verify(body, headers)).toThrow()
  })
})
