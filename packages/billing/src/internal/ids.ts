import { randomBytes } from "node:crypto"
import { Clock, Effect } from "effect"

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/**
 * A billing id in the payment provider's style (`cus_…`, `pm_…`, `sub_…`, `in_…`; decision 0432):
 * ten characters of time (sortable), fourteen random. Billing's prefixes are Stripe's, so an id
 * reads the same whichever adapter made it.
 */
export const billingId = (prefix: string): Effect.Effect<string> =>
  Effect.map(Clock.currentTimeMillis, (millis) => {
    let time = ""
    let rest = millis
    for (let i = 0; i < 8; i++) {
      time = ALPHABET[rest % 62] + time
      rest = Math.floor(rest / 62)
    }
    const random = Array.from(randomBytes(14), (byte) => ALPHABET[byte % 62]).join("")
    return `${prefix}_${time}${random}`
  })
