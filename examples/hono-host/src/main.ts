import { serve } from "@hono/node-server"
import { makeHost } from "./app.js"

const port = Number(process.env.PORT ?? 3000)
const { app, dispose } = makeHost({
  env: { CORE_DATA_DIR: "./.core/hono-host", CORE_PUBLIC_URL: `http://localhost:${port}`, ...process.env }
})
const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, (info) => {
  process.stderr.write(`Hono host on http://localhost:${info.port} — identity at /identity\n`)
})

const stop = () => server.close(() => void dispose().then(() => process.exit(0)))
process.once("SIGTERM", stop)
process.once("SIGINT", stop)
