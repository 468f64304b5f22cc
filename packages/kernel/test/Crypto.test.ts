import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Redacted } from "effect"
import * as Crypto from "../src/Crypto.js"

const FAST = { N: 1024, r: 8, p: 1 }
const key = Crypto.deriveKey("root-secret-of-the-test-suite-000", "secrets-at-rest")

const reasonOf = (token: string, withKey = key, aad?: string) =>
  Crypto.decrypt(withKey, token, aad).pipe(Effect.either, Effect.map(Either.match({ onLeft: (e) => e.reason, onRight: () => "ok" })))

const flip = (part: string) => (part[0] === "A" ? "B" : "A") + part.slice(1)

describe("Crypto", () => {
  it("hashes with SHA-256 to hex", () => {
    expect(Crypto.sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expect(Crypto.sha256Hex(new TextEncoder().encode("abc"))).toBe(Crypto.sha256Hex("abc"))
  })

  it("makes base64url random tokens of the asked size", () => {
    const token = Crypto.randomToken()
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(Buffer.from(token, "base64url")).toHaveLength(32)
    expect(Crypto.randomToken(16)).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(Crypto.randomToken()).not.toBe(token)
  })

  it("compares strings in constant time, whatever their lengths", () => {
    expect(Crypto.safeEqual("static-key", "static-key")).toBe(true)
    expect(Crypto.safeEqual("static-key", "static-kez")).toBe(false)
    expect(Crypto.safeEqual("static-key", "static-key-longer")).toBe(false)
    expect(Crypto.safeEqual("", "")).toBe(true)
  })

  it("derives independent, stable keys per purpose (HKDF-SHA256)", () => {
    const again = Crypto.deriveKey(Redacted.make("root-secret-of-the-test-suite-000"), "secrets-at-rest")
    expect(Buffer.from(again).equals(Buffer.from(key))).toBe(true)
    expect(key).toHaveLength(32)
    const other = Crypto.deriveKey("root-secret-of-the-test-suite-000", "identity-jwt")
    expect(Buffer.from(other).equals(Buffer.from(key))).toBe(false)
    expect(Crypto.deriveKey("root-secret-of-the-test-suite-000", "x", 64)).toHaveLength(64)
  })

  it.effect("encrypts to a versioned, self-describing value and decrypts it", () =>
    Effect.gen(function*() {
      const token = Crypto.encrypt(key, "sk_live_ünïcode ✓")
      expect(token).toMatch(/^enc\.v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/)
      expect(token).not.toContain("sk_live")
      expect(Crypto.encrypt(key, "sk_live_ünïcode ✓")).not.toBe(token)
      expect(yield* Crypto.decrypt(key, token)).toBe("sk_live_ünïcode ✓")
      expect(yield* Crypto.decrypt(key, Crypto.encrypt(key, ""))).toBe("")
    }))

  it.effect("detects tampering of the ciphertext, the iv and the tag", () =>
    Effect.gen(function*() {
      const parts = Crypto.encrypt(key, "a secret value").split(".")
      for (const index of [3, 4, 5]) {
        const tampered = parts.map((part, i) => (i === index ? flip(part) : part)).join(".")
        expect(yield* reasonOf(tampered)).toBe("Tampered")
      }
    }))

  it.effect("refuses a wrong key, wrong associated data, other versions and garbage", () =>
    Effect.gen(function*() {
      const token = Crypto.encrypt(key, "value", "sec_1")
      expect(yield* reasonOf(token, key, "sec_1")).toBe("ok")
      expect(yield* reasonOf(token, key, "sec_2")).toBe("Tampered")
      expect(yield* reasonOf(token, key)).toBe("Tampered")
      expect(yield* reasonOf(token, Crypto.deriveKey("another-root-secret-entirely-0000", "secrets-at-rest"), "sec_1")).toBe("WrongKey")
      expect(yield* reasonOf(token.replace("enc.v1.", "enc.v9."))).toBe("UnsupportedVersion")
      expect(yield* reasonOf("plain text")).toBe("Malformed")
      expect(yield* reasonOf("enc.v1.a.b")).toBe("Malformed")
      expect(yield* reasonOf(token.replace(/\.[^.]+$/, ".!!"))).toBe("Malformed")
    }))

  it.effect("dies on a key of the wrong size (a programming error)", () =>
    Effect.gen(function*() {
      expect(() => Crypto.encrypt(new Uint8Array(16), "x")).toThrow(RangeError)
      const exit = yield* Effect.exit(Crypto.decrypt(new Uint8Array(16), "enc.v1.x"))
      expect(exit._tag).toBe("Failure")
    }))

  it.effect("hashes passwords with scrypt, parameters in the hash, and verifies them", () =>
    Effect.gen(function*() {
      const hash = yield* Crypto.hashPassword("correct horse battery staple", FAST)
      expect(hash).toMatch(/^\$scrypt\$N=1024,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
      expect(yield* Crypto.hashPassword("correct horse battery staple", FAST)).not.toBe(hash)
      expect(yield* Crypto.verifyPassword("correct horse battery staple", hash)).toBe(true)
      expect(yield* Crypto.verifyPassword("correct horse battery stapler", hash)).toBe(false)
      expect(yield* Crypto.verifyPassword("", hash)).toBe(false)
    }))

  it.effect("uses the default cost and never matches a malformed or hostile hash", () =>
    Effect.gen(function*() {
      const hash = yield* Crypto.hashPassword("pw")
      expect(hash.startsWith("$scrypt$N=16384,r=8,p=1$")).toBe(true)
      expect(yield* Crypto.verifyPassword("pw", hash)).toBe(true)
      expect(yield* Crypto.verifyPassword("pw", "not a hash")).toBe(false)
      expect(yield* Crypto.verifyPassword("pw", hash.replace("N=16384", "N=1073741824"))).toBe(false)
      expect(yield* Crypto.verifyPassword("pw", hash.replace("N=16384", "N=1000"))).toBe(false)
      expect(yield* Crypto.verifyPassword("pw", hash.replace("N=16384", "N=8192"))).toBe(false)
    }))
})
