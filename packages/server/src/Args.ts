import { parseArgs } from "node:util"

/** A command line `core-server` understood. */
export type Command =
  | { readonly _tag: "Start"; readonly port: number | undefined }
  | { readonly _tag: "Migrate" }
  | { readonly _tag: "Backup"; readonly file: string }
  | { readonly _tag: "Restore"; readonly file: string; readonly yes: boolean }
  | { readonly _tag: "Serve"; readonly service: string; readonly port: number | undefined }
  | { readonly _tag: "Bootstrap"; readonly email: string }
  | { readonly _tag: "Worker"; readonly concurrency: number | undefined }
  | { readonly _tag: "Help"; readonly topic: string | undefined }
  | { readonly _tag: "Version" }

/** The command line is wrong; the message says how. Exit code 2. */
export class UsageError {
  readonly _tag = "UsageError"
  constructor(readonly message: string) {}
}

/** The usage text of `core-server --help`. */
export const USAGE = `Usage: core-server <command> [options]

Commands:
  start [--port <n>]          Run the all-in-one server (gateway, services, embedded database)
  migrate                     Run every domain's database migrations, then exit
  backup <file>               Copy the embedded database to <file> (.tar.gz); the server must be stopped
  restore <file> [--yes]      Replace the embedded database with the backup in <file>; the server must be stopped
  serve --service <name> [--port <n>]
                              Run one service in its own process
  bootstrap --email <email>   Make the user with that email an owner of the operator organization
  worker [--concurrency <n>]  Run only the provisioning job worker (PostgreSQL, DATABASE_URL)

Options:
  -h, --help                  Show this help (or a command's: core-server <command> --help)
  -v, --version               Show the version

Configuration comes from environment variables (see .env.example), and from a .env file in the
working directory for those not set: PORT (default 8787), CORE_DATA_DIR (default ./.core/data),
DATABASE_URL, REDIS_URL, CORE_SECRET, LOG_LEVEL, ...`

const COMMAND_USAGE: Readonly<Record<string, string>> = {
  start: "Usage: core-server start [--port <n>]\n\nRuns the all-in-one server on --port (default PORT, else 8787) with the embedded database under\nCORE_DATA_DIR, or PostgreSQL when DATABASE_URL is set. Stops gracefully on SIGTERM or SIGINT:\nrequests in flight finish (up to CORE_SHUTDOWN_GRACE_MS, default 10000), then the database closes.",
  migrate: "Usage: core-server migrate\n\nRuns every domain's migrations against the configured database, then exits.",
  backup: "Usage: core-server backup <file>\n\nWrites the embedded database (CORE_DATA_DIR) to <file> (mode 0600). Stop the server first.\nThe archive does not hold CORE_SECRET: without the same secret, the data restored is unreadable.\nNot available with DATABASE_URL: use pg_dump.",
  restore: "Usage: core-server restore <file> [--yes]\n\nReplaces the embedded database (CORE_DATA_DIR) with the backup in <file>. Stop the server first.\nAsks before replacing a database (--yes answers for you); the replaced one is kept beside it\nas pgdata.before-restore-<time>. Not available with DATABASE_URL: use pg_restore.",
  serve: "Usage: core-server serve --service <name> [--port <n>]\n\nRuns one service in its own process on --port (default PORT).",
  worker: "Usage: core-server worker [--concurrency <n>]\n\nRuns only the provisioning job worker, without HTTP, on the PostgreSQL database of DATABASE_URL\n(as many processes as you like, beside `core-server start` or `serve --service provisioning`).\nIt runs the migrations first, then claims and runs jobs, --concurrency at once (1 to 256; default\nCORE_WORKER_CONCURRENCY, else 2), under a lease of CORE_JOB_LEASE_MS (default 15000).\nOn SIGTERM or SIGINT it claims nothing more, lets running jobs finish for up to CORE_SHUTDOWN_GRACE_MS\n(default 10000), gives back the rest (queued again at once) and exits.",
  bootstrap: "Usage: core-server bootstrap --email <email>\n\nCreates the operator organization (core-operator) if needed and makes the user with that\nemail its owner: that user becomes a platform operator. The user must have signed up first."
}

/** The help text of a command, or the general usage. */
export const usageOf = (topic: string | undefined): string =>
  topic !== undefined && COMMAND_USAGE[topic] !== undefined ? COMMAND_USAGE[topic] : USAGE

const parsePort = (value: string): number | UsageError => {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN
  return Number.isInteger(port) && port <= 65535
    ? port
    : new UsageError(`--port must be an integer between 0 and 65535 (got ${JSON.stringify(value)})`)
}

const one = (command: string, positionals: ReadonlyArray<string>, what: string): string | UsageError => {
  if (positionals.length === 0) return new UsageError(`${command} needs ${what}`)
  if (positionals.length > 1) return new UsageError(`${command} takes one ${what}, got ${positionals.length}`)
  return positionals[0]
}

const read = (argv: ReadonlyArray<string>) =>
  parseArgs({
    args: [...argv],
    options: {
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
      service: { type: "string" },
      port: { type: "string" },
      email: { type: "string" },
      yes: { type: "boolean", short: "y" },
      concurrency: { type: "string" }
    },
    allowPositionals: true,
    strict: true
  })

/**
 * Read the command line (without `node` and the script).
 *
 * @example
 * parse(["backup", "data.tar.gz"]) // { _tag: "Backup", file: "data.tar.gz" }
 */
export const parse = (argv: ReadonlyArray<string>): Command | UsageError => {
  let parsed: ReturnType<typeof read>
  try {
    parsed = read(argv)
  } catch (error) {
    return new UsageError(error instanceof Error ? error.message : String(error))
  }
  const { positionals, values } = parsed
  const [command, ...rest] = positionals
  if (values.version === true) return { _tag: "Version" }
  if (values.help === true || command === "help") return { _tag: "Help", topic: command === "help" ? rest[0] : command }
  if (command === undefined) return new UsageError("a command is required")
  if (command !== "serve" && values.service !== undefined) return new UsageError(`${command} takes no --service`)
  if (command !== "serve" && command !== "start" && values.port !== undefined) {
    return new UsageError(`${command} takes no --port`)
  }
  if (command !== "bootstrap" && values.email !== undefined) return new UsageError(`${command} takes no --email`)
  if (command !== "restore" && values.yes !== undefined) return new UsageError(`${command} takes no --yes`)
  if (command !== "worker" && values.concurrency !== undefined) return new UsageError(`${command} takes no --concurrency`)
  switch (command) {
    case "start": {
      if (rest.length > 0) return new UsageError(`start takes no arguments (got ${JSON.stringify(rest[0])})`)
      const port = values.port === undefined ? undefined : parsePort(values.port)
      if (port instanceof UsageError) return port
      return { _tag: "Start", port }
    }
    case "migrate":
      return rest.length > 0 ? new UsageError(`migrate takes no arguments (got ${JSON.stringify(rest[0])})`) : { _tag: "Migrate" }
    case "backup":
    case "restore": {
      const file = one(command, rest, "<file>")
      if (file instanceof UsageError) return file
      return command === "backup" ? { _tag: "Backup", file } : { _tag: "Restore", file, yes: values.yes === true }
    }
    case "serve": {
      if (rest.length > 0) return new UsageError(`serve takes no arguments (got ${JSON.stringify(rest[0])})`)
      if (values.service === undefined || values.service === "") return new UsageError("serve needs --service <name>")
      const port = values.port === undefined ? undefined : parsePort(values.port)
      if (port instanceof UsageError) return port
      return { _tag: "Serve", service: values.service, port }
    }
    case "bootstrap": {
      if (rest.length > 0) return new UsageError(`bootstrap takes no arguments (got ${JSON.stringify(rest[0])})`)
      const email = values.email?.trim() ?? ""
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) return new UsageError("bootstrap needs --email <email> (the address a user signed up with)")
      return { _tag: "Bootstrap", email }
    }
    case "worker": {
      if (rest.length > 0) return new UsageError(`worker takes no arguments (got ${JSON.stringify(rest[0])})`)
      if (values.concurrency === undefined) return { _tag: "Worker", concurrency: undefined }
      const concurrency = /^\d{1,3}$/.test(values.concurrency) ? Number(values.concurrency) : Number.NaN
      return concurrency >= 1 && concurrency <= 256
        ? { _tag: "Worker", concurrency }
        : new UsageError(`--concurrency must be an integer between 1 and 256 (got ${JSON.stringify(values.concurrency)})`)
    }
    default:
      return new UsageError(`unknown command ${JSON.stringify(command)}`)
  }
}
