import { Data, Effect, Redacted } from "effect"
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  scrypt,
  timingSafeEqual
} from "node:crypto"
import * as nodeCrypto from "node:crypto"

/** The SHA-256 digest of a string (UTF-8) or bytes, as lowercase hex. Used to store tokens and keys. */
export const sha256Hex = (input: string | Uint8Array): string =>
  oneShotHash === undefined ? createHash("sha256").update(input).digest("hex") : oneShotHash("sha256", input, "hex")

/** The SHA-256 digest of a string or bytes. */
export const sha256 = (input: string | Uint8Array): Buffer =>
  oneShotHash === undefined ? createHash("sha256").update(input).digest() : oneShotHash("sha256", input, "buffer")

/** Node's one-shot `crypto.hash` (20.12 and later): the same digest without a `Hash` object per call. */
const oneShotHash = (nodeCrypto as {
  hash?: {
    (algorithm: string, data: string | Uint8Array, encoding: "hex"): string
    (algorithm: string, data: string | Uint8Array, encoding: "buffer"): Buffer
  }
}).hash

/**
 * A random token of `bytes` random bytes, base64url without padding (43 characters for 32 bytes).
 *
 * @default bytes 32
 */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString("base64url")

/**
 * Compare two strings in constant time (their SHA-256 digests are compared with `timingSafeEqual`,
 * so neither the content nor the length leaks through timing).
 */
export const safeEqual = (a: string, b: string): boolean => timingSafeEqual(sha256(a), sha256(b))

const HKDF_SALT = "core/kernel/deriveKey/v1"

/**
 * Derive an independent key for one purpose from the root secret (HKDF-SHA256), e.g.
 * `deriveKey(config.secret, "secrets-at-rest")` or `deriveKey(config.secret, "identity-jwt")`.
 *
 * @default length 32
 */
export const deriveKey = (
  secret: string | Uint8Array | Redacted.Redacted<string>,
  purpose: string,
  length = 32
): Uint8Array => {
  const material = Redacted.isRedacted(secret) ? Redacted.value(secret) : secret
  return new Uint8Array(hkdfSync("sha256", material, HKDF_SALT, purpose, length))
}

const FORMAT = "enc"
const VERSION = "v1"
const IV_BYTES = 12
const TAG_BYTES = 16
const KEY_BYTES = 32

/** Why a ciphertext could not be decrypted. */
export class DecryptionError extends Data.TaggedError("DecryptionError")<{
  readonly reason: "Malformed" | "UnsupportedVersion" | "WrongKey" | "Tampered"
  readonly message: string
}> {}

const keyId = (key: Uint8Array): string =>
  createHmac("sha256", key).update("core/kernel/key-id").digest().subarray(0, 6).toString("base64url")

const checkKey = (key: Uint8Array) => {
  if (key.length !== KEY_BYTES) throw new RangeError(`AES-256-GCM needs a ${KEY_BYTES}-byte key (use deriveKey)`)
}

/**
 * Encrypt text with AES-256-GCM. The result is self-describing:
 * `enc.v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts; the key id tells keys apart without
 * revealing them). `associatedData`, when given, must be given again to decrypt (bind a value to its row).
 *
 * @throws RangeError when the key is not 32 bytes (a programming error).
 */
export const encrypt = (key: Uint8Array, plaintext: string, associatedData?: string): string => {
  checkKey(key)
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES })
  if (associatedData !== undefined) cipher.setAAD(Buffer.from(associatedData, "utf8"))
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
  return [FORMAT, VERSION, keyId(key), iv.toString("base64url"), ciphertext.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".")
}

const BASE64URL = /^[A-Za-z0-9_-]*$/

/** Decrypt what `encrypt` produced, failing with `DecryptionError` on a wrong key, tampering or garbage. */
export const decrypt = (key: Uint8Array, token: string, associatedData?: string): Effect.Effect<string, DecryptionError> =>
  Effect.suspend(() => {
    checkKey(key)
    const parts = token.split(".")
    if (parts.length < 2 || parts[0] !== FORMAT) {
      return Effect.fail(new DecryptionError({ reason: "Malformed", message: "Not an encrypted value" }))
    }
    if (parts[1] !== VERSION) {
      return Effect.fail(new DecryptionError({ reason: "UnsupportedVersion", message: `Unsupported encryption format ${parts[1]}` }))
    }
    const [, , kid, iv, ciphertext, tag] = parts
    if (parts.length !== 6 || !parts.every((part) => BASE64URL.test(part))) {
      return Effect.fail(new DecryptionError({ reason: "Malformed", message: "Malformed encrypted value" }))
    }
    if (kid !== keyId(key)) {
      return Effect.fail(new DecryptionError({ reason: "WrongKey", message: "The value was encrypted under another key" }))
    }
    const ivBytes = Buffer.from(iv, "base64url")
    const tagBytes = Buffer.from(tag, "base64url")
    if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) {
      return Effect.fail(new DecryptionError({ reason: "Malformed", message: "Malformed encrypted value" }))
    }
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, ivBytes, { authTagLength: TAG_BYTES })
      if (associatedData !== undefined) decipher.setAAD(Buffer.from(associatedData, "utf8"))
      decipher.setAuthTag(tagBytes)
      const plaintext = Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()])
      return Effect.succeed(plaintext.toString("utf8"))
    } catch {
      return Effect.fail(new DecryptionError({ reason: "Tampered", message: "The encrypted value failed authentication" }))
    }
  })

/** scrypt cost parameters; they are written into each hash. */
export interface ScryptParams {
  /** CPU/memory cost, a power of two. @default 16384 */
  readonly N: number
  /** Block size. @default 8 */
  readonly r: number
  /** Parallelization. @default 1 */
  readonly p: number
}

/** The default scrypt parameters (about 16 MiB and 50 ms per hash). */
export const DEFAULT_SCRYPT: ScryptParams = { N: 16384, r: 8, p: 1 }

const SALT_BYTES = 16
const HASH_BYTES = 32
const PASSWORD_HASH = /^\$scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/

const validParams = ({ N, p, r }: ScryptParams): boolean =>
  Number.isInteger(N) && N >= 2 && N <= 2 ** 20 && (N & (N - 1)) === 0 &&
  Number.isInteger(r) && r >= 1 && r <= 32 && Number.isInteger(p) && p >= 1 && p <= 16

const scryptKey = (password: string, salt: Uint8Array, length: number, params: ScryptParams): Effect.Effect<Buffer> =>
  Effect.async<Buffer>((resume) => {
    const maxmem = 256 * params.N * params.r * params.p + 32 * 1024 * 1024
    scrypt(password.normalize("NFKC"), salt, length, { ...params, maxmem }, (error, key) => {
      resume(error === null ? Effect.succeed(key) : Effect.die(error))
    })
  })

/**
 * Hash a password with scrypt: `$scrypt$N=16384,r=8,p=1$<salt>$<hash>` (base64url), so the
 * parameters travel with the hash and can be raised later.
 */
export const hashPassword = (password: string, params: ScryptParams = DEFAULT_SCRYPT): Effect.Effect<string> =>
  Effect.suspend(() => {
    if (!validParams(params)) return Effect.dieMessage("invalid scrypt parameters")
    const salt = randomBytes(SALT_BYTES)
    return Effect.map(
      scryptKey(password, salt, HASH_BYTES, params),
      (key) => `$scrypt$N=${params.N},r=${params.r},p=${params.p}$${salt.toString("base64url")}$${key.toString("base64url")}`
    )
  })

/** Whether a password matches a hash from `hashPassword` (a malformed hash never matches). */
export const verifyPassword = (password: string, hash: string): Effect.Effect<boolean> =>
  Effect.suspend(() => {
    const match = PASSWORD_HASH.exec(hash)
    if (match === null) return Effect.succeed(false)
    const params = { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) }
    const salt = Buffer.from(match[4], "base64url")
    const expected = Buffer.from(match[5], "base64url")
    if (!validParams(params) || salt.length < 8 || expected.length < 16 || expected.length > 64) return Effect.succeed(false)
    return Effect.map(scryptKey(password, salt, expected.length, params), (key) => timingSafeEqual(key, expected))
  })
