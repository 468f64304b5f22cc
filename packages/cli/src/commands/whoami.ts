import { expectPositionals, parseOptions } from "../args.js"
import { credentialPaths, readCredentials } from "../credentials.js"
import { CliError, ExitCode } from "../errors.js"
import type { CommandContext } from "../spec.js"

const USAGE = "core whoami [--json]"

const relative = (expiresAt: string, now: number): string => {
  const minutes = Math.round((Date.parse(expiresAt) - now) / 60_000)
  const span = (value: number) =>
    value >= 2 * 24 * 60 ? `${Math.round(value / (24 * 60))} days` : value >= 120 ? `${Math.round(value / 60)} hours` : `${value} minutes`
  return minutes >= 0 ? `in ${span(minutes)}` : `expired ${span(-minutes)} ago`
}

/** `core whoami`: the identity in the credential file (never its tokens), read locally. */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { positionals } = parseOptions(argv, {}, USAGE)
  expectPositionals(positionals, [], USAGE)
  const credentials = readCredentials(credentialPaths(env))
  if (credentials === null) throw new CliError("Not logged in. Run: core login", ExitCode.failure, "NOT_LOGGED_IN")
  const { token: _token, refreshToken: _refreshToken, ...record } = credentials
  const now = Date.now()
  const expired = Date.parse(record.expiresAt) <= now
  const note = !expired ? "" : credentials.refreshToken !== null ? "; renewed on the next command" : "; run: core login"
  ui.result({ ...record, expired, refreshable: credentials.refreshToken !== null }, () => {
    ui.line(`Logged in as ${record.email}`)
    ui.line(`  Platform:  ${record.platformId ?? "-"}`)
    ui.line(`  Role:      ${record.role}`)
    ui.line(`  Expires:   ${record.expiresAt} (${relative(record.expiresAt, now)}${note})`)
    ui.line(`  Identity:  ${record.iamUrl}`)
    ui.line(`  API:       ${record.apiUrl}`)
  })
  return ExitCode.ok
}
