/**
 * Signing as the Standard Webhooks specification gives it: a secret is `whsec_` and the base64 of
 * its key bytes; a signature is `v1,` and the base64 of HMAC-SHA256(key, `<id>.<timestamp>.<body>`);
 * several signatures (during a rotation) are separated by spaces. Web Crypto only.
 */

const PREFIX = "whsec_"
/** Bytes of a new secret's key. */
export const SECRET_BYTES = 32

const toBase64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes))
const fromBase64 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(text), (char) => char.charCodeAt(0)) as Uint8Array<ArrayBuffer>

/** A new secret, `whsec_<base64 of 32 random bytes>`. */
export const newSecret = (): string => `${PREFIX}${toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)))}`

/** The signature of one message with one secret: `v1,<base64>`. */
export const sign = async (secret: string, id: string, timestamp: number, body: string): Promise<string> => {
  const key = await crypto.subtle.importKey("raw", fromBase64(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${body}`))
  return `v1,${toBase64(new Uint8Array(mac))}`
}

/** The three headers of a delivery, signed with every given secret (the new one first). */
export const headersFor = async (
  secrets: ReadonlyArray<string>,
  id: string,
  timestamp: number,
  body: string
): Promise<Record<string, string>> => ({
  "webhook-id": id,
  "webhook-timestamp": String(timestamp),
  "webhook-signature": (await Promise.all(secrets.map((secret) => sign(secret, id, timestamp, body)))).join(" ")
})
