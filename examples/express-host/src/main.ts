import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { makeHost } from "./app.js"

const port = Number(process.env.PORT ?? 3002)
const { app, dispose } = makeHost({ CORE_DATA_DIR: "./.core/express-host", CORE_PUBLIC_URL: `http://localhost:${port}`, ...process.env })
const server = http.createServer(app)
server.listen(port, process.env.HOST ?? "127.0.0.1", () => {
  process.stdout.write(`Express host on http://127.0.0.1:${(server.address() as AddressInfo).port} — Core at /auth, /registry, /billing\n`)
})

const stop = () => {
  server.closeAllConnections()
  server.close(() => void dispose().then(() => process.exit(0)))
}
process.once("SIGTERM", stop)
process.once("SIGINT", stop)
