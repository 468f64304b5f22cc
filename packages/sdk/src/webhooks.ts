import { CoreError } from "./errors.js"

/** An event as Core delivers it (`@core/contracts`' `Events.EventEnvelope`). */
export interface WebhookEvent {
  readonly id: string
  readonly type: string
  readonly version: number
  readonly createdAt: string
  readonly platformId: string | null
  readonly organizationId: string
  readonly data: Record<string, unknown>
}

/** A delivery whose signature, timestamp or body does not hold: answer it 400 and do not act on it. */
export class WebhookVerificationError extends CoreError {
  override readonly name: string = "WebhookVerificationError"
}

/** The headers of a delivery, as a `Headers` object or a plain record (Node's `IncomingHttpHeaders`, Express's `req.headers`). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/** How `verifyWebhook` checks a delivery. */
export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (replays older than this are refused). @default 300 */
  readonly toleranceSeconds?: number
  /** The current time in milliseconds. @default Date.now() */
  readonly now?: number
}

const PREFIX = "whsec_"

const header = (headers: WebhookHeaders, name: string): string | undefined => {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined
  const record = headers as Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name)
  const value = key === undefined ? undefined : record[key]
  return typeof value === "string" ? value : value?.[0]
}

const fromBase64 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(text), (char) => char.charCodeAt(0)) as Uint8Array<ArrayBuffer>

const equal = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!
  return difference === 0
}

/**
 * Verify a webhook Core sent, as the Standard Webhooks specification says (Web Crypto only: Node,
 * Bun, Deno, workerd, browsers): one of `webhook-signature`'s `v1,` signatures must be the
 * HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` by `secret` (`whsec_…`), and the
 * timestamp within five minutes of now. Pass the body exactly as received (the raw text, not
 * re-serialized JSON). Answers the event; throws `WebhookVerificationError` otherwise.
 *
 * @example
 * app.post("/hooks", express.text({ type: "*\/*" }), async (req, res) => {
 *   const event = await verifyWebhook(req.body, req.headers, process.env.CORE_WEBHOOK_SECRET!)
 *   res.sendStatus(204)
 * })
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {}
): Promise<WebhookEvent> {
  const id = header(headers, "webhook-id")
  const timestamp = header(headers, "webhook-timestamp")
  const signatures = header(headers, "webhook-signature")
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    throw new WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature")
  }
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError("Invalid webhook-timestamp")
  const now = Math.floor((options.now ?? Date.now()) / 1000)
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError("The webhook-timestamp is too far from now")
  const text = typeof body === "string" ? body : new TextDecoder().decode(body)
  let key: CryptoKey
  try {
    key = await crypto.subtle.importKey("raw", fromBase64(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
  } catch {
    throw new WebhookVerificationError("The secret is not a whsec_ secret")
  }
  const expected = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${text}`)))
  const matches = signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",", 2)
    if (version !== "v1" || signature === undefined) return false
    try {
      return equal(fromBase64(signature), expected)
    } catch {
      return false
    }
  })
  if (!matches) throw new WebhookVerificationError("No signature matches")
  try {
    return JSON.parse(text) as WebhookEvent
  } catch {
    throw new WebhookVerificationError("The body is not JSON")
  }
}
