import { startCluster } from "./cluster.js"

/**
 * `npm start -w @core-examples/multi-process`: the identity service and two gateways, each its own
 * process, on `DATABASE_URL` (default the local PostgreSQL) and `REDIS_URL` (default the local
 * Redis). Ctrl-C stops all three.
 */
const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback)

process.stderr.write(`Starting the identity service and two gateways on ${new URL(databaseUrl).host} and ${new URL(redisUrl).host}…\n`)
const cluster = await startCluster({
  databaseUrl,
  redisUrl,
  ...(process.env.CORE_SECRET === undefined ? {} : { secret: process.env.CORE_SECRET }),
  ...(process.env.CORE_STATIC_API_KEY === undefined ? {} : { staticKey: process.env.CORE_STATIC_API_KEY }),
  ports: { gateways: [port("GATEWAY_A_PORT", 8787), port("GATEWAY_B_PORT", 8788)], iam: port("IAM_PORT", 9101) },
  ...(process.env.VERBOSE === "1" ? { onLine: (line: string) => void process.stderr.write(`${line}\n`) } : {})
})
process.stderr.write(
  [
    "",
    `  gateway A   ${cluster.gateways[0].url}`,
    `  gateway B   ${cluster.gateways[1].url}`,
    `  identity    ${cluster.iam.url}  (its own process; reach it through a gateway at /api/v1/iam)`,
    "",
    `  Try: curl -s ${cluster.gateways[0].url}/api/v1/iam/.well-known/oauth-authorization-server`,
    `       curl -s ${cluster.gateways[1].url}/metrics | head`,
    "",
    "  Ctrl-C stops all three.",
    ""
  ].join("\n")
)
const shutdown = () => void cluster.stop().then(() => process.exit(0))
process.once("SIGINT", shutdown)
process.once("SIGTERM", shutdown)
