import type { Configuration } from "@core/kernel"

/** Where the first screen says the data lives. */
export type Storage =
  | { readonly _tag: "Embedded"; readonly dataDir: string | undefined }
  | { readonly _tag: "PostgreSQL" }

/**
 * The first screen of `core-server start`: the addresses and what to try next. Plain text for
 * people, written to stderr so that stdout stays one JSON log line per event (docs/decisions/0044).
 */
export const firstScreen = (options: {
  readonly port: number
  readonly config: Configuration
  readonly storage: Storage
  readonly version: string
}): string => {
  const base = `http://localhost:${options.port}`
  const storage = options.storage._tag === "PostgreSQL"
    ? "PostgreSQL (DATABASE_URL)"
    : options.storage.dataDir === undefined
    ? "embedded PostgreSQL, in memory (nothing is kept after exit)"
    : `embedded PostgreSQL in ${options.storage.dataDir}`
  const lines = [
    "",
    `  Core ${options.version} is running.`,
    "",
    `  Local:     ${base}`,
    ...(options.config.publicUrl === `http://localhost:${options.config.port}` ? [] : [`  Public:    ${options.config.publicUrl}`]),
    `  Health:    ${base}/health   (liveness: 200 while the process runs, from its first moment)`,
    `  Ready:     ${base}/ready    (readiness: 200 once it serves; requests sent before wait for it)`,
    `  API base:  ${base}/api/v1`,
    `  Data:      ${storage}`,
    "",
    "  Try next:",
    `    open ${base}/sign-up to create an account and an organization`,
    `    then ${options.port === 8787 ? "" : `CORE_API_URL=${base} `}npx core login to sign the CLI in`,
    `    (signed in, ${base}/ lists your organizations, API keys and sessions; npx core --help for the rest)`,
    "",
    "  Stop with Ctrl+C (or SIGTERM): requests in flight finish first.",
    ""
  ]
  return lines.join("\n")
}
