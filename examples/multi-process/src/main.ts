import { SERVICES, type ServiceName, startCluster } from "./cluster.js"

/**
 * `npm start -w @core-examples/multi-process`: every service in its own process, two gateways and
 * two provisioning workers, on `DATABASE_URL` (default the local PostgreSQL) and `REDIS_URL`
 * (default the local Redis). Ctrl-C stops them all.
 */
const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback)

/** The default ports: the gateways at 8787 and 8788, the services from 9101 on (`<SERVICE>_PORT` moves one). */
const servicePorts = Object.fromEntries(SERVICES.map((service, index) => [service, port(`${service.toUpperCase()}_PORT`, 9101 + index)])) as Record<ServiceName, number>

process.stderr.write(`Starting ${SERVICES.length} services, two gateways and two workers on ${new URL(databaseUrl).host} and ${new URL(redisUrl).host}…\n`)
const cluster = await startCluster({
  databaseUrl,
  redisUrl,
  ...(process.env.CORE_SECRET === undefined ? {} : { secret: process.env.CORE_SECRET }),
  ...(process.env.CORE_STATIC_API_KEY === undefined ? {} : { staticKey: process.env.CORE_STATIC_API_KEY }),
  ...(process.env.CORE_DATA_DIR === undefined ? {} : { dataDir: process.env.CORE_DATA_DIR }),
  ports: { gateways: [port("GATEWAY_A_PORT", 8787), port("GATEWAY_B_PORT", 8788)], services: servicePorts },
  ...(process.env.VERBOSE === "1" ? { onLine: (line: string) => void process.stderr.write(`${line}\n`) } : {})
})
const [a, b] = cluster.gateways
process.stderr.write(
  [
    "",
    `  gateway A     ${a.url}   (/api/v1/*, /mcp, the sites at http://<project>.localhost:${new URL(a.url).port}/)`,
    `  gateway B     ${b.url}`,
    ...SERVICES.map((service) => `  ${service.padEnd(13)} ${cluster.services[service].url}   (reach it through a gateway)`),
    `  workers       pid ${cluster.workers[0].child.pid} and ${cluster.workers[1].child.pid}`,
    `  data dir      ${cluster.dataDir}`,
    "",
    `  Try: curl -s ${a.url}/api/v1/iam/.well-known/oauth-authorization-server`,
    `       curl -s ${b.url}/metrics | head`,
    "",
    "  Ctrl-C stops them all.",
    ""
  ].join("\n")
)
const shutdown = () => void cluster.stop().then(() => process.exit(0))
process.once("SIGINT", shutdown)
process.once("SIGTERM", shutdown)
