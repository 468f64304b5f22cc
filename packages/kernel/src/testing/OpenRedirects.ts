/**
 * Redirect targets that must never be followed off the public origin: the attacks seen against
 * Core's reset, verification, magic-link and sign-in callbacks (decision 0555) and the classic
 * open-redirect forms. Each is `[what it is, the target]`; `core.example.com` is the public address
 * and `evil.example.com` the attacker's. The security tests and the route fuzz both send them.
 */
export const OPEN_REDIRECTS: ReadonlyArray<readonly [string, string]> = [
  ["another origin", "https://evil.example.com/steal"],
  ["another origin over http", "http://evil.example.com"],
  ["a protocol-relative URL", "//evil.example.com"],
  ["a bare protocol-relative host", "//evil"],
  ["a tab between the slashes", "/\t/evil.example.com"],
  ["a line feed between the slashes", "/\n/evil.example.com"],
  ["a carriage return between the slashes", "/\r/evil.example.com"],
  ["a line feed and a carriage return", "/\n\r/evil.example.com"],
  ["a backslash for the second slash", "/\\evil.example.com"],
  ["two backslashes", "\\\\evil.example.com"],
  ["leading whitespace before a protocol-relative URL", "  //evil.example.com"],
  ["a leading tab before a scheme", "\thttps://evil.example.com"],
  ["a javascript: URL", "javascript:alert(1)"],
  ["a javascript: URL with a tab", "java\tscript:alert(document.cookie)"],
  ["a data: URL", "data:text/html,<script>alert(1)</script>"],
  ["a scheme with no slashes", "https:evil.example.com"],
  ["credentials before another host", "https://core.example.com@evil.example.com/"],
  ["credentials on the public host", "https://user:pass@core.example.com/"],
  ["a relative path without a slash", "evil.example.com/steal"],
  ["a look-alike host", "https://core.example.com.evil.example.com/"],
  ["a NUL character", "/\u0000/evil.example.com"],
  ["4,097 characters", `/${"a".repeat(4096)}`]
]

/** Targets on the public address (`https://core.example.com`) that must still be accepted. */
export const SAFE_REDIRECTS: ReadonlyArray<readonly [string, string]> = [
  ["a path", "/dashboard"],
  ["a path with a query and a fragment", "/settings?tab=billing#card"],
  ["the public origin", "https://core.example.com/welcome"],
  ["an encoded tab in a path (stays a path)", "/%09/evil.example.com"],
  ["the public origin in capitals", "HTTPS://CORE.EXAMPLE.COM/Welcome"]
]
