/**
 * A short name for the device behind a session's user agent, as a person recognizes it:
 * "Chrome on Linux", "Safari on iPhone", "Firefox on Windows", "core CLI 0.1.0". Best effort:
 * an agent it does not know is its first product token ("curl 8.5.0"), cut to 40 characters.
 *
 * @example deviceName("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36") // "Chrome on Linux"
 */
export const deviceName = (userAgent: string): string => {
  const agent = userAgent.trim()
  const cli = /^core-cli\/(\S+)/.exec(agent)
  if (cli !== null) return `core CLI ${cli[1]}`
  const browser = BROWSERS.find(([, pattern]) => pattern.test(agent))?.[0]
  const system = SYSTEMS.find(([, pattern]) => pattern.test(agent))?.[0]
  if (browser !== undefined) return system === undefined ? browser : `${browser} on ${system}`
  const product = /^([^\s/()]+)(?:\/([^\s()]+))?/.exec(agent)
  const named = product === null ? agent : product[2] === undefined ? product[1]! : `${product[1]} ${product[2]}`
  return named.length > 40 ? `${named.slice(0, 39)}…` : named || "Unknown device"
}

/** Browsers, most specific first: Edge and Opera say "Chrome", Chrome says "Safari". */
const BROWSERS: ReadonlyArray<readonly [string, RegExp]> = [
  ["Edge", /\bEdg(?:e|A|iOS)?\//],
  ["Opera", /\bOPR\/|\bOpera\b/],
  ["Samsung Internet", /\bSamsungBrowser\//],
  ["Firefox", /\bFirefox\/|\bFxiOS\//],
  ["Chrome", /\b(?:Headless)?Chrome\/|\bCriOS\//],
  ["Chromium", /\bChromium\//],
  ["Safari", /\bVersion\/[\d.]+.*\bSafari\//]
]

/** Systems, most specific first: Android says "Linux", iOS says "like Mac OS X". */
const SYSTEMS: ReadonlyArray<readonly [string, RegExp]> = [
  ["Android", /\bAndroid\b/],
  ["iPhone", /\biPhone\b/],
  ["iPad", /\biPad\b/],
  ["ChromeOS", /\bCrOS\b/],
  ["Windows", /\bWindows\b/],
  ["macOS", /\bMac OS X\b|\bMacintosh\b/],
  ["Linux", /\bLinux\b|\bX11\b/]
]
