import { describe, expect, it } from "vitest"
import { check, MAX_TARGET_LENGTH, normalize } from "../src/RedirectTarget.js"
import { OPEN_REDIRECTS, SAFE_REDIRECTS } from "../src/testing/OpenRedirects.js"

const policy = { publicUrl: "https://core.example.com/", trustedOrigins: ["https://app.example.com"] }

describe("RedirectTarget.check (decision 0555: no open redirects)", () => {
  it.each(OPEN_REDIRECTS)("refuses %s", (_what, target) => {
    expect(check(target, policy)).toBeUndefined()
  })

  it.each(SAFE_REDIRECTS)("accepts %s, on the public origin", (_what, target) => {
    expect(check(target, policy)?.origin).toBe("https://core.example.com")
  })

  it("resolves a path against the public address and keeps its query and fragment", () => {
    expect(check("/settings?tab=billing#card", policy)?.href).toBe("https://core.example.com/settings?tab=billing#card")
    expect(check("/%09/evil.example.com", policy)?.href).toBe("https://core.example.com/%09/evil.example.com")
  })

  it("accepts a trusted origin, and nothing that only looks like one", () => {
    expect(check("https://app.example.com/done", policy)?.href).toBe("https://app.example.com/done")
    expect(check("http://app.example.com/done", policy)).toBeUndefined()
    expect(check("https://app.example.com:8443/done", policy)).toBeUndefined()
    expect(check("https://app.example.com.evil.example.com/", policy)).toBeUndefined()
  })

  it("checks what a browser follows: the tab, CR and LF it drops, the backslash it reads as a slash", () => {
    expect(normalize(" \t/\t/evil.example.com\r\n ")).toBe("//evil.example.com")
    expect(normalize("/\\evil.example.com")).toBe("//evil.example.com")
    expect(normalize("/a\u0000b")).toBeUndefined()
    // Node's own URL parser agrees: the tab hides a protocol-relative URL.
    expect(new URL("/\t/evil.example.com", "https://core.example.com/").host).toBe("evil.example.com")
  })

  it("refuses a target over the limit instead of cutting it", () => {
    expect(check(`/${"a".repeat(MAX_TARGET_LENGTH - 1)}`, policy)).toBeDefined()
    expect(check(`/${"a".repeat(MAX_TARGET_LENGTH)}`, policy)).toBeUndefined()
  })

  it("an unparsable public address accepts no absolute URL, and paths still resolve on it", () => {
    expect(check("https://core.example.com/x", { publicUrl: "https://core.example.com" })?.href).toBe("https://core.example.com/x")
    expect(check("https://core.example.com/x", { publicUrl: "https://core.example.com", trustedOrigins: ["not a url"] })?.href)
      .toBe("https://core.example.com/x")
  })
})
