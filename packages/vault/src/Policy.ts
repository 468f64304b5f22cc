import type { Caller } from "@core/kernel"

/**
 * Who may use the vault: every authenticated caller (a user's session, an API key, the static key),
 * as the gateway authenticates them; the docs describe Core itself and hold no tenant's data
 * (decision 0404). What a session is bound to: the caller who opened it.
 */
export const ownerOf = (caller: Caller): string => {
  switch (caller.kind) {
    case "user":
      return `user:${caller.userId}`
    case "apikey":
      return `apikey:${caller.keyId}`
    case "service":
      return "service"
  }
}
