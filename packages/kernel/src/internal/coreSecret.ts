/**
 * Where `CORE_SECRET` comes from: the environment (long enough in production), else outside
 * production `<dataDir>/secret`, created on first use, or a random one in memory without a data
 * directory.
 */
import { Either } from "effect"
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { ConfigIssue, SecretSource } from "../Config.js"
import type { NodeEnv, Values } from "./configVariables.js"

const SECRET_FILE = "secret"
const PRODUCTION_SECRET_LENGTH = 32

const newSecret = (): string => randomBytes(32).toString("base64url")

const isErrno = (error: unknown, code: string): boolean =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === code

/** Read `<dataDir>/secret`, creating it (mode 0600) with 32 random bytes on first use. */
const persistedSecret = (dataDir: string): Either.Either<string, ConfigIssue> => {
  const file = join(dataDir, SECRET_FILE)
  const readExisting = (): Either.Either<string, ConfigIssue> => {
    const stored = readFileSync(file, "utf8").trim()
    return stored.length >= PRODUCTION_SECRET_LENGTH
      ? Either.right(stored)
      : Either.left({ variable: "CORE_SECRET", message: `CORE_SECRET is unset and ${file} does not hold a valid secret` })
  }
  try {
    return readExisting()
  } catch (error) {
    if (!isErrno(error, "ENOENT")) {
      return Either.left({ variable: "CORE_SECRET", message: `CORE_SECRET is unset and ${file} cannot be read (${String(error)})` })
    }
  }
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    const secret = newSecret()
    writeFileSync(file, secret + "\n", { mode: 0o600, flag: "wx" })
    return Either.right(secret)
  } catch (error) {
    if (isErrno(error, "EEXIST")) return readExisting()
    return Either.left({ variable: "CORE_SECRET", message: `CORE_SECRET is unset and ${file} cannot be created (${String(error)})` })
  }
}

/** The secret of this process and where it came from, or the issue that keeps it from having one. */
export const resolveSecret = (
  values: Values,
  nodeEnv: NodeEnv,
  dataDir: string | undefined
): Either.Either<{ secret: string; source: SecretSource }, ConfigIssue> => {
  if (values.CORE_SECRET !== undefined) {
    return nodeEnv === "production" && values.CORE_SECRET.length < PRODUCTION_SECRET_LENGTH
      ? Either.left({ variable: "CORE_SECRET", message: `CORE_SECRET must be at least ${PRODUCTION_SECRET_LENGTH} characters when NODE_ENV=production` })
      : Either.right({ secret: values.CORE_SECRET, source: "env" })
  }
  if (nodeEnv === "production") {
    return Either.left({ variable: "CORE_SECRET", message: "CORE_SECRET is required when NODE_ENV=production" })
  }
  if (dataDir === undefined) return Either.right({ secret: newSecret(), source: "memory" })
  return Either.map(persistedSecret(dataDir), (secret) => ({ secret, source: "file" as const }))
}
