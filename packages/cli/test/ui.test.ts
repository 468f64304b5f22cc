import { PassThrough } from "node:stream"
import { describe, expect, it } from "vitest"
import { createUi, fitColumns, formatColumns, type Output } from "../src/ui.js"
import { eventually } from "@core/kernel/testing/poll"

const capture = (isTTY = false) => {
  const chunks: Array<string> = []
  const output: Output = { isTTY, write: (chunk: string) => chunks.push(chunk) }
  return { output, text: () => chunks.join("") }
}

const setup = (options: { json?: boolean; tty?: boolean; env?: Record<string, string> } = {}) => {
  const stdout = capture(options.tty)
  const stderr = capture()
  const ui = createUi({ stdout: stdout.output, stderr: stderr.output, json: options.json ?? false, env: options.env ?? {} })
  return { ui, stdout: stdout.text, stderr: stderr.text }
}

describe("formatColumns", () => {
  it("aligns columns with two spaces and no trailing blanks", () => {
    expect(formatColumns([["a", "long", "x"], ["longer", "b", ""]], "  ")).toEqual(["  a       long  x", "  longer  b"])
  })
})

describe("fitColumns", () => {
  const rows = [["ID", "NAME", "NOTE"], ["key_0123456789", "a-rather-long-name", "x"]]
  it("leaves a table that fits alone", () => {
    expect(fitColumns(rows, 80)).toEqual(rows)
  })
  it("shrinks the widest column first, keeps headers whole while it can, and cuts with an ellipsis", () => {
    const fitted = fitColumns(rows, 30)
    expect(fitted[0]).toEqual(["ID", "NAME", "NOTE"])
    expect(fitted[1][2]).toBe("x")
    expect(fitted[1][0].length + fitted[1][1].length).toBe(30 - 2 * 2 - "NOTE".length)
    expect(fitted[1].slice(0, 2).every((cell) => cell.endsWith("…"))).toBe(true)
    expect(formatColumns(fitted).every((line) => line.length <= 30)).toBe(true)
  })
  it("cuts headers too when even whole headers do not fit", () => {
    const fitted = fitColumns([["IDENTIFIER", "DESCRIPTION"], ["key_0123456789", "something"]], 12)
    expect(formatColumns(fitted).every((line) => line.length <= 12)).toBe(true)
    expect(fitted[0][0].endsWith("…")).toBe(true)
  })
})

describe("ui", () => {
  it("prints a table with a header, '-' for empty cells and JSON for objects", () => {
    const { ui, stdout } = setup()
    ui.table([{ id: "plt_1", tier: "free", tags: ["a"] }, { id: "plt_22", tier: null, tags: [] }], [
      { header: "ID", value: (row) => row.id },
      { header: "TIER", value: (row) => row.tier },
      { header: "TAGS", value: (row) => row.tags }
    ])
    expect(stdout()).toBe("ID      TIER  TAGS\nplt_1   free  [\"a\"]\nplt_22  -     []\n")
  })

  it("renders text, or the value as JSON under --json", () => {
    const text = setup()
    text.ui.result({ id: 1 }, () => text.ui.line("one"))
    expect(text.stdout()).toBe("one\n")
    const json = setup({ json: true })
    json.ui.result({ id: 1 }, () => json.ui.line("one"))
    expect(json.stdout()).toBe('{\n  "id": 1\n}\n')
  })

  it("is interactive only on a terminal, without --json, CI or TERM=dumb", () => {
    expect(setup({ tty: true }).ui.interactive).toBe(true)
    expect(setup({ tty: false }).ui.interactive).toBe(false)
    expect(setup({ tty: true, json: true }).ui.interactive).toBe(false)
    expect(setup({ tty: true, env: { CI: "true" } }).ui.interactive).toBe(false)
    expect(setup({ tty: true, env: { TERM: "dumb" } }).ui.interactive).toBe(false)
  })

  it("shows spinner progress as plain lines when piped", async () => {
    const { ui, stdout, stderr } = setup()
    const spinner = await ui.spinner("Waiting for approval")
    spinner.update("Still waiting")
    spinner.stop("Approved")
    const failing = await ui.spinner("Uploading")
    failing.fail("Upload failed")
    expect(stdout()).toBe("Waiting for approval\nStill waiting\nApproved\nUploading\n")
    expect(stderr()).toBe("Upload failed\n")
  })

  it("prints each piped progress message once: a repeated update or a stop with the last status is not printed again", async () => {
    const { ui, stdout } = setup()
    const spinner = await ui.spinner("queued")
    for (const status of ["queued", "queued", "building", "building", "success"]) spinner.update(status)
    spinner.stop("success")
    expect(stdout()).toBe("queued\nbuilding\nsuccess\n")
  })

  it("keeps stdout pure JSON by sending progress to stderr under --json", async () => {
    const { ui, stdout, stderr } = setup({ json: true })
    const spinner = await ui.spinner("Deploying")
    spinner.stop("Deployed")
    ui.data({ ok: true })
    expect(stdout()).toBe('{\n  "ok": true\n}\n')
    expect(stderr()).toBe("Deploying\nDeployed\n")
  })

  it("uses a clack spinner on a terminal", async () => {
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 80 })
    const written: Array<string> = []
    stream.on("data", (chunk: Buffer) => written.push(chunk.toString()))
    const ui = createUi({ stdout: stream, stderr: capture().output, json: false, env: {} })
    const spinner = await ui.spinner("Waiting")
    await eventually(() => written.join(""), (output) => output.includes("Waiting"), { message: "the spinner's first frame" })
    spinner.stop("Done waiting")
    const output = written.join("")
    expect(output).toContain("Waiting")
    expect(output).toContain("Done waiting")
    expect(output).toMatch(/\u001b\[/)
  })

  it("answers a confirmation without asking when not interactive", async () => {
    const { ui, stdout } = setup()
    await expect(ui.confirm("Delete it?", { nonInteractive: false })).resolves.toBe(false)
    await expect(ui.confirm("Delete it?", { nonInteractive: true })).resolves.toBe(true)
    expect(stdout()).toBe("")
  })
})
