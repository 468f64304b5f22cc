/** Shapes and helpers the Stripe stand-in's modules share (form bodies, errors, time, proration). */

/** A Stripe object as JSON. */
export type Json = Record<string, any>

/** An error answer of the stand-in: status, Stripe's error object, headers. */
export class StripeFailure {
  constructor(readonly status: number, readonly error: Json, readonly headers: Record<string, string> = {}) {}
}

/** Stripe's 404 `resource_missing`. */
export const missing = (kind: string, id: string) =>
  new StripeFailure(404, { type: "invalid_request_error", code: "resource_missing", param: "id", message: `No such ${kind}: '${id}'` })

/** Parse a form body with Stripe's bracket keys (`metadata[a]=1`, `items[0][price]=p`) into nested values. */
export const parseForm = (text: string): Json => {
  const root: Json = {}
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const parts = rawKey.split(/\[|\]\[|\]/).filter((part) => part !== "")
    let node: any = root
    parts.forEach((part, index) => {
      const last = index === parts.length - 1
      const nextIsIndex = !last && /^\d+$/.test(parts[index + 1]!)
      if (last) node[part] = value
      else node = node[part] ??= nextIsIndex ? [] : {}
    })
  }
  return root
}

/** Now in epoch seconds, as Stripe counts. */
export const now = () => Math.floor(Date.now() / 1000)
/** A subscription period of the stand-in. */
export const MONTH = 30 * 86_400

/**
 * Stripe's proration of an item's change at `at` (seconds): the unused time of the old amount is
 * credited and the remaining time of the new one charged, each `round(amount × secondsLeft /
 * periodSeconds)`. The invoice preview and the update both use it, so they agree by construction,
 * as Stripe's do for one `proration_date`.
 */
export const prorate = (input: { readonly oldAmount: number; readonly newAmount: number; readonly periodStart: number; readonly periodEnd: number; readonly at: number }) => {
  const total = Math.max(1, input.periodEnd - input.periodStart)
  const left = Math.min(total, Math.max(0, input.periodEnd - input.at))
  return { credit: -Math.round((input.oldAmount * left) / total), charge: Math.round((input.newAmount * left) / total) }
}
