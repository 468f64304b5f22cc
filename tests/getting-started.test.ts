import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { findCommand, globalOptions } from "../packages/cli/src/registry.js"
import { builtCli } from "../packages/cli/test/built-cli.js"
import { useServer } from "../packages/server/test/ServerProcess.js"
import { runsOncePerCi } from "./support/once.js"
import { site } from "./support/sites.js"

/**
 * docs/getting-started.md as a newcomer follows it: every `sh` block, in order, in one bash, against
 * the all-in-one server started as `npm start` starts it, with the real `core` binary (the shared
 * build, decision 0266). The `console` blocks (`npm install`, `npm start`) are what this test does
 * itself. The text around the blocks is checked too (decision 0618): every address it gives
 * answers (a page, or the deployed site), every link to a file or a heading leads somewhere, and
 * every `core …` command it names exists with the options it gives, the required ones included.
 * Once per CI run.
 */
const SLOW = 300_000
const GUIDE = fileURLToPath(new URL("../docs/getting-started.md", import.meta.url))

/** The `sh` blocks of a Markdown page, in order. */
export const shellBlocks = (markdown: string): Array<string> =>
  [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!)

/** The page without its fenced blocks: what a reader reads as text. */
const prose = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```$/gm, "")

/** The addresses the text gives (`<http://…>` and `` `http://…` ``), without templates such as `<slug>`. */
const proseUrls = (markdown: string): Array<string> =>
  [...new Set([...prose(markdown).matchAll(/<(https?:\/\/[^\s<>`]+)>|`(https?:\/\/[^\s<>`]+)`/g)].map((match) => (match[1] ?? match[2])!))]

/** The Markdown links of the text that are not addresses: files beside the page, or `#headings`. */
const proseLinks = (markdown: string): Array<string> =>
  [...new Set([...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^https?:/.test(target)))]

/** The `core …` commands the text names in inline code (`npx core …` too). */
const proseCommands = (markdown: string): Array<string> =>
  [...new Set([...prose(markdown).matchAll(/`(?:npx )?(core [^`]+)`/g)].map((match) => match[1]!))]

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
const anchorOf = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-")

/**
 * What is wrong with `command` (e.g. `core billing upgrade growth`) by the command line's own
 * usage, or `undefined`: an unknown command or subcommand, an option it does not take, a required
 * option missing (the usage's options outside `[…]`).
 */
const commandProblem = (command: string): string | undefined => {
  const words = command.split(/\s+/).slice(1)
  const spec = findCommand(words[0] ?? "")
  if (spec === undefined) return `no command '${words[0]}'`
  const sub = spec.subcommands === undefined ? undefined : spec.subcommands.find((candidate) => candidate.name === words[1])
  if (spec.subcommands !== undefined && words[1] !== undefined && !words[1].startsWith("-") && sub === undefined) return `no subcommand '${words[1]}'`
  const usage = sub?.usage ?? spec.usage
  const flagsOf = (text: string) => [...text.matchAll(/--[a-z][\w-]*/g)].map((match) => match[0])
  const known = new Set([...flagsOf(usage), ...[...spec.options, ...(sub?.options ?? []), ...globalOptions].flatMap((option) => flagsOf(option.flags))])
  const given = flagsOf(words.join(" "))
  const unknown = given.filter((flag) => !known.has(flag))
  if (unknown.length > 0) return `${unknown.join(", ")} not an option of '${usage}'`
  // `[…]` may nest (`[--platform <id>]`): drop the innermost until none is left.
  let required = usage
  while (/\[[^[\]]*\]/.test(required)) required = required.replace(/\[[^[\]]*\]/g, "")
  const missing = flagsOf(required).filter((flag) => !given.includes(flag))
  return missing.length > 0 ? `missing ${missing.join(", ")} ('${usage}')` : undefined
}

describe.runIf(runsOncePerCi)("docs/getting-started.md, run as written", () => {
  const server = useServer({}, SLOW)
  const work = mkdtempSync(join(tmpdir(), "getting-started-"))
  let bin = ""

  beforeAll(async () => {
    bin = (await builtCli()).bundle
  }, SLOW)
  afterAll(() => rmSync(work, { recursive: true, force: true }))

  it("goes from sign-up to a deployed site and its usage in billing", async () => {
    const blocks = shellBlocks(readFileSync(GUIDE, "utf8"))
    expect(blocks.length).toBeGreaterThanOrEqual(5)
    // `alias core="npx core"` does not expand in a script's bash; the function runs the built binary.
    const script = [`set -euo pipefail`, `core() { node ${JSON.stringify(bin)} "$@"; }`, ...blocks.map((block, index) => `echo "--- block ${index + 1}"\n${block}`)].join("\n")
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile("bash", ["-c", script], {
        cwd: work,
        timeout: 240_000,
        env: { PATH: process.env.PATH ?? "", HOME: work, NO_COLOR: "1", CI: "1", CORE_API_URL: server.base }
      }, (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })))
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    const out = run.stdout
    expect(out).toMatch(/--- block 1\nok\n/)
    expect(out).toContain("ada@example.com")
    expect(out).toMatch(/Live at http:\/\/acme\.localhost:\d+\//)
    expect(out).toContain("<h1>Hello from Core</h1>")
    expect(out).toMatch(/Builds +2 +100 /)
    expect(out).toMatch(/free +\$0\.00\/month/)
    expect(out).toMatch(/Upgraded to growth: charged \$\d+\.\d{2} \(invoice in_\w+\)/)
    expect(out).toMatch(/Platform plt_\w+: growth \(\$\d+\.\d{2}\/month\), active/)
  }, SLOW)

  it("every address the text gives answers: the pages from a browser, the site once deployed", async () => {
    const urls = proseUrls(readFileSync(GUIDE, "utf8"))
    expect(urls).toEqual(expect.arrayContaining(["http://localhost:8787/sign-up", "http://localhost:8787/org-setup", "http://acme.localhost:8787/"]))
    const answers: Record<string, number> = {}
    for (const url of urls) {
      const { host, pathname } = new URL(url)
      if (host === "localhost:8787") {
        // As a browser opens it (following a redirect to sign in, say), on the test's server.
        const answer = await fetch(new URL(pathname, server.base), { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } })
        answers[url] = answer.status
      } else {
        // `<slug>.localhost`: the site the first test deployed, through the local edge.
        answers[url] = (await site(server.base, host.replace(/:8787$/, ""), pathname)).status
      }
    }
    expect(answers).toEqual(Object.fromEntries(urls.map((url) => [url, 200])))
  })

  it("every link of the text leads to a file of the repository or a heading of the page", () => {
    const markdown = readFileSync(GUIDE, "utf8")
    const headings = new Set([...markdown.matchAll(/^#+ (.+)$/gm)].map((match) => anchorOf(match[1]!)))
    const broken = proseLinks(markdown).filter((target) =>
      target.startsWith("#") ? !headings.has(target.slice(1)) : !existsSync(resolve(dirname(GUIDE), target.split("#")[0]!)))
    expect(broken).toEqual([])
  })

  it("every core command the text names exists, with the options it gives and those it requires", () => {
    const commands = proseCommands(readFileSync(GUIDE, "utf8"))
    expect(commands).toEqual(expect.arrayContaining(["core login", "core deploy my-site --branch preview"]))
    expect(Object.fromEntries(commands.map((command) => [command, commandProblem(command) ?? "ok"])))
      .toEqual(Object.fromEntries(commands.map((command) => [command, "ok"])))
    // The check can fail: the command the guide once named lacked two required options.
    expect(commandProblem("core billing upgrade growth")).toMatch(/^missing --payment-method, --email /)
    expect(commandProblem("core organizations")).toBe("no command 'organizations'")
  })
})
