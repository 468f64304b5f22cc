/**
 * Whether the SDK runs in a browser (a page or a worker of one), where CORS limits the request
 * headers the gateway accepts.
 */
export const isBrowser = (): boolean =>
  typeof (globalThis as { document?: unknown }).document !== "undefined" ||
  typeof (globalThis as { importScripts?: unknown }).importScripts === "function"

/** A random RFC 9562 version 4 UUID, from Web Crypto (present in every supported runtime). */
export const randomUuid = (): string => {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID()
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  bytes[6] = (bytes[6] & 0x0f) | 0x40
  bytes[8] = (bytes[8] & 0x3f) | 0x80
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
