import { describe, expect, it } from "vitest"
import { formatId, ID_PREFIXES, idSchema, parseId, PlatformId, UserId } from "../src/index.js"

describe("Ids", () => {
  it("formats prefix + 10 time + 16 random Crockford base32 characters", () => {
    expect(formatId("usr", 0, new Uint8Array(10))).toBe("usr_00000000000000000000000000")
    expect(formatId("plt", 2 ** 48 - 1, new Uint8Array(10).fill(255))).toBe("plt_7ZZZZZZZZZZZZZZZZZZZZZZZZZ")
    expect(formatId("job", 1767225600000, Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 33]))).toBe("job_01KDVDNA000000000000000011")
  })

  it("sorts lexicographically by time", () => {
    const random = new Uint8Array(10).fill(255)
    const earlier = formatId("org", 1_000, random)
    const later = formatId("org", 1_001, new Uint8Array(10))
    expect(earlier < later).toBe(true)
  })

  it("refuses times and random parts out of range", () => {
    expect(() => formatId("usr", -1, new Uint8Array(10))).toThrow(RangeError)
    expect(() => formatId("usr", 2 ** 48, new Uint8Array(10))).toThrow(RangeError)
    expect(() => formatId("usr", 1.5, new Uint8Array(10))).toThrow(RangeError)
    expect(() => formatId("usr", 0, new Uint8Array(9))).toThrow(RangeError)
  })

  it("parses the prefix and time back", () => {
    expect(parseId("job_01KDVDNA000000000000000011")).toEqual({ prefix: "job", timeMillis: 1767225600000 })
    expect(parseId("xyz_01KDVDNA000000000000000011")).toBeUndefined()
    expect(parseId("job_01KDVDNA00000000000000001")).toBeUndefined()
    expect(parseId("job_01KDVDNA00000000000000001U")).toBeUndefined()
    expect(parseId("job_81KDVDNA000000000000000011")).toBeUndefined()
  })

  it("has one schema per prefix that accepts only its own ids", () => {
    expect(ID_PREFIXES).toEqual(expect.arrayContaining(["usr", "org", "ses", "key", "grt", "inv", "plt", "ent", "res", "act", "job", "dlq", "stk", "ver", "dep", "sec"]))
    expect(ID_PREFIXES.every((prefix) => /^[a-z]{3}$/.test(prefix))).toBe(true)
    const id = formatId("usr", Date.UTC(2026, 0, 1), new Uint8Array(10))
    expect(UserId.parse(id)).toBe(id)
    expect(PlatformId.safeParse(id).success).toBe(false)
    expect(UserId.safeParse("usr_01kdvdna000000000000000011").success).toBe(false)
    expect(UserId.safeParse("usr_").error?.issues[0].message).toBe("Expected a usr_ id")
    for (const prefix of ID_PREFIXES) expect(idSchema(prefix).safeParse(formatId(prefix, 5, new Uint8Array(10))).success).toBe(true)
  })
})
