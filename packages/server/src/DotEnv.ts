import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { parseEnv } from "node:util"

/** The `.env` file could not be read (it exists but is a directory, unreadable, …). */
export class DotEnvError {
  readonly _tag = "DotEnvError"
  constructor(readonly message: string) {}
}

/**
 * The variables of `<dir>/.env` (Node's own parser, `util.parseEnv`: `KEY=value`, quotes, `#`
 * comments, `export` prefixes); none when the file does not exist.
 */
export const read = (dir: string): Readonly<Record<string, string>> | DotEnvError => {
  const file = Path.join(dir, ".env")
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {}
    return new DotEnvError(`Cannot read ${file}: ${(error as Error).message}`)
  }
  const parsed = parseEnv(text)
  const variables: Record<string, string> = {}
  for (const name in parsed) {
    const value = parsed[name]
    if (value !== undefined) variables[name] = value
  }
  return variables
}

/**
 * Load `<dir>/.env` (default: the working directory) into `env` (default: `process.env`): each
 * variable the environment does not already set, so the environment wins. Answers the names set.
 *
 * @example
 * // .env: PORT=9000  LOG_LEVEL=debug; environment: PORT=8080
 * load() // ["LOG_LEVEL"]; process.env.PORT stays "8080"
 */
export const load = (
  env: Record<string, string | undefined> = process.env,
  dir: string = process.cwd()
): ReadonlyArray<string> | DotEnvError => {
  const variables = read(dir)
  if (variables instanceof DotEnvError) return variables
  const set: Array<string> = []
  for (const name in variables) {
    if (env[name] !== undefined) continue
    env[name] = variables[name]
    set.push(name)
  }
  return set
}
