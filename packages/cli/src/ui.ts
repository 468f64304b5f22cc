import type { Writable } from "node:stream"
import { CliError } from "./errors.js"

/** Where the UI writes: `process.stdout`/`process.stderr`, or a stand-in in tests. */
export interface Output {
  write(chunk: string): unknown
  readonly isTTY?: boolean
}

/** What the UI needs from the process. */
export interface UiOptions {
  readonly stdout: Output
  readonly stderr: Output
  /** `--json`: stdout carries only JSON; progress goes to stderr. */
  readonly json: boolean
  readonly env: Readonly<Record<string, string | undefined>>
}

/** A column of {@link Ui.table}. */
export interface Column<Row> {
  readonly header: string
  readonly value: (row: Row) => unknown
}

/** Progress of one long step: a clack spinner on a terminal, plain lines otherwise. */
export interface Spinner {
  update(message: string): void
  stop(message?: string): void
  fail(message?: string): void
}

/** The one terminal UI every command uses. */
export interface Ui {
  readonly json: boolean
  /** True when stdout is a terminal, not `--json`, not CI and not `TERM=dumb`: spinners and prompts allowed. */
  readonly interactive: boolean
  /** A line of output on stdout. */
  line(text?: string): void
  /** A line on stderr (errors, warnings, progress under `--json`). */
  error(text: string): void
  /** A value as JSON on stdout (two-space indent). */
  data(value: unknown): void
  /** `data(value)` under `--json`, else `render()`. */
  result(value: unknown, render: () => void): void
  /** Rows as aligned text columns with a header line. */
  table<Row>(rows: ReadonlyArray<Row>, columns: ReadonlyArray<Column<Row>>): void
  spinner(message: string): Promise<Spinner>
  /** A yes/no question on a terminal; elsewhere answers `nonInteractive` without asking. */
  confirm(message: string, options: { readonly nonInteractive: boolean }): Promise<boolean>
}

const cell = (value: unknown): string =>
  value === null || value === undefined || value === "" ? "-" : typeof value === "object" ? JSON.stringify(value) : String(value)

/** Aligns rows of cells into lines separated by two spaces, with no trailing blanks. */
export const formatColumns = (rows: ReadonlyArray<ReadonlyArray<string>>, indent = ""): Array<string> => {
  const widths: Array<number> = []
  for (const row of rows) row.forEach((text, index) => (widths[index] = Math.max(widths[index] ?? 0, text.length)))
  return rows.map((row) => indent + row.map((text, index) => text.padEnd(widths[index])).join("  ").trimEnd())
}

/** Builds the UI over the given streams. */
export const createUi = (options: UiOptions): Ui => {
  const { stdout, stderr, json, env } = options
  const interactive = !json && stdout.isTTY === true && env.CI === undefined && env.TERM !== "dumb"
  const line = (text = "") => void stdout.write(`${text}\n`)
  const error = (text: string) => void stderr.write(`${text}\n`)
  const data = (value: unknown) => void stdout.write(`${JSON.stringify(value, null, 2)}\n`)
  const progress = json ? error : line

  return {
    json,
    interactive,
    line,
    error,
    data,
    result: (value, render) => (json ? data(value) : render()),
    table: (rows, columns) => {
      const cells = rows.map((row) => columns.map((column) => cell(column.value(row))))
      for (const text of formatColumns([columns.map((column) => column.header), ...cells])) line(text)
    },
    spinner: async (message) => {
      if (!interactive) {
        progress(message)
        return { update: progress, stop: (done) => done && progress(done), fail: (failed) => failed && error(failed) }
      }
      const clack = await import("@clack/prompts")
      const spin = clack.spinner({ output: stdout as Writable })
      spin.start(message)
      return { update: (text) => spin.message(text), stop: (done) => spin.stop(done), fail: (failed) => spin.error(failed) }
    },
    confirm: async (message, { nonInteractive }) => {
      if (!interactive) return nonInteractive
      const clack = await import("@clack/prompts")
      const answer = await clack.confirm({ message, output: stdout as Writable })
      if (clack.isCancel(answer)) throw new CliError("Cancelled.", 1)
      return answer
    }
  }
}
