import { expectPositionals, parseOptions } from "../args.js"
import { clearCredentials, credentialPaths, readCredentials } from "../credentials.js"
import { ExitCode } from "../errors.js"
import { isApiKey, signOut } from "../oauth.js"
import type { CommandContext } from "../spec.js"

const USAGE = "core logout"

/**
 * `core logout`: ends the session at the identity service when it can (best effort, bearer tokens
 * only), then clears the credential file in place (it keeps existing, holding `{}`, mode kept).
 */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { positionals } = parseOptions(argv, {}, USAGE)
  expectPositionals(positionals, [], USAGE)
  const paths = credentialPaths(env)
  const current = (() => {
    try {
      return readCredentials(paths)
    } catch {
      return null
    }
  })()
  const signedOut = current !== null && !isApiKey(current.token) ? await signOut(current.iamUrl, current.token) : false
  const cleared = clearCredentials(paths)
  ui.result({ loggedOut: cleared, sessionEnded: signedOut, file: paths.file }, () =>
    ui.line(cleared ? `Logged out${current !== null ? ` ${current.email}` : ""}. Credentials cleared in ${paths.file}` : "Not logged in.")
  )
  return ExitCode.ok
}
