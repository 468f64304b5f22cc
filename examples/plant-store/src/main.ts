import { serve } from "@hono/node-server"
import { makePlantStore } from "./app.js"

const port = Number(process.env.PORT ?? 3001)
const { app, dispose } = makePlantStore({
  env: { CORE_URL: "http://127.0.0.1:8787", CORE_DATA_DIR: "./.core/plant-store", ...process.env }
})
const server = serve({ fetch: app.fetch, port, hostname: process.env.HOST ?? "127.0.0.1" }, (info) => {
  process.stdout.write(`Plant store on http://127.0.0.1:${info.port} (Core at ${process.env.CORE_URL ?? "http://127.0.0.1:8787"})\n`)
})

const stop = () => server.close(() => void dispose().then(() => process.exit(0)))
process.once("SIGTERM", stop)
process.once("SIGINT", stop)
