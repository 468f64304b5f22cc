import * as Http from "node:http"

/**
 * A GET of `path` on the server at `base` with `Host: <host>:<port>`: a site the local edge serves
 * at `<project>.localhost` (fetch cannot set `Host`). Answers its status and text.
 */
export const site = (base: string, host: string, path = "/") =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const port = Number(new URL(base).port)
    const request = Http.request({ host: "127.0.0.1", port, path, headers: { host: `${host}:${port}` } }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
    })
    request.on("error", reject)
    request.end()
  })
