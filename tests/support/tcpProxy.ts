import * as Net from "node:net"

/** A TCP proxy on 127.0.0.1 in front of `target`, that a test takes down and brings back. */
export interface TcpProxy {
  /** The port it listens on (the same after `restore`). */
  readonly port: number
  /** Stop listening and cut every open connection: new connections are refused (`ECONNREFUSED`). */
  readonly refuse: () => Promise<void>
  /** Listen again on the same port. */
  readonly restore: () => Promise<void>
  readonly close: () => Promise<void>
}

/** Start a proxy forwarding each connection to `target` (`{ host, port }`). */
export const tcpProxy = async (target: { readonly host: string; readonly port: number }): Promise<TcpProxy> => {
  const open = new Set<Net.Socket>()
  const server = Net.createServer((client) => {
    const upstream = Net.connect(target.port, target.host)
    open.add(client).add(upstream)
    const drop = () => {
      client.destroy()
      upstream.destroy()
      open.delete(client)
      open.delete(upstream)
    }
    client.on("error", drop).on("close", drop)
    upstream.on("error", drop).on("close", drop)
    client.pipe(upstream).pipe(client)
  })
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject)
        resolve((server.address() as Net.AddressInfo).port)
      })
    })
  const port = await listen(0)
  const refuse = () =>
    new Promise<void>((resolve) => {
      for (const socket of open) socket.destroy()
      open.clear()
      if (!server.listening) return resolve()
      server.close(() => resolve())
    })
  return {
    port,
    refuse,
    restore: async () => {
      if (!server.listening) await listen(port)
    },
    close: refuse
  }
}
