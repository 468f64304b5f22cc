import type { Writable } from "node:stream"
import { CliError } from "./errors.js"

/** Where the UI writes: `process.stdout`/`process.stderr`, or a stand-in in tests. */
export interface Output {
  write(chunk: string): unknown
  readonly isTTY?: boolean
  /** The terminal's width, when it is one. */
  readonly columns?: number
}

/** What the UI needs from the process. */
export interface UiOptions {
  readonly stdout: Output
  readonly stderr: Output
  /** `--json`: stdout carries only JSON; progress goes to stderr. */
  readonly json: boolean
  readonly env: Readonly<Record<string, string | undefined>>
  /** Where answers to prompts come from; prompts need it to be a terminal too. */
  readonly stdin?: { readonly isTTY?: boolean }
}

/** How {@link Ui.list} words an empty or capped list. */
export interface ListText {
  /** The line printed instead of an empty table, e.g. "No API keys in this organization." */
  readonly empty: string
  /** The plural noun, e.g. "API keys". */
  readonly noun: string
  /** How many there are in all, when known. */
  readonly total?: number
  /** Whether more rows exist than were shown (when the total is unknown). */
  readonly more?: boolean
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
  /** True when a question can be asked: {@link interactive}, and stdin is a terminal as well. */
  readonly canAsk: boolean
  /** A line of output on stdout. */
  line(text?: string): void
  /** A line on stderr (errors, warnings, progress under `--json`). */
  error(text: string): void
  /** A value as JSON on stdout (two-space indent). */
  data(value: unknown): void
  /** `data(value)` under `--json`, else `render()`. */
  result(value: unknown, render: () => void): void
  /**
   * Rows as aligned text columns with a header line. On a terminal the table fits its width: the
   * widest columns shrink and their cells end in an ellipsis; piped output is never cut.
   */
  table<Row>(rows: ReadonlyArray<Row>, columns: ReadonlyArray<Column<Row>>): void
  /** {@link table}, or `text.empty` when there are no rows, then a line when some were left out. */
  list<Row>(rows: ReadonlyArray<Row>, columns: ReadonlyArray<Column<Row>>, text: ListText): void
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

/** The narrowest a shrunk column gets while the headers can stay whole: its header, and at least this. */
const MIN_COLUMN = 8
/** The narrowest any column gets when even whole headers do not fit. */
const MIN_CUT_COLUMN = 4

/**
 * Cuts the cells of a table (header first) so its lines fit `width`: takes a character at a time
 * from the widest column that is still wider than its floor (first keeping headers whole, then
 * not), and ends a cut cell with "…". A terminal too narrow even for that gets the narrowest table.
 */
export const fitColumns = (rows: ReadonlyArray<ReadonlyArray<string>>, width: number): Array<Array<string>> => {
  const widths: Array<number> = []
  for (const row of rows) row.forEach((text, index) => (widths[index] = Math.max(widths[index] ?? 0, text.length)))
  const soft = widths.map((natural, index) => Math.min(natural, Math.max(rows[0]?.[index]?.length ?? 0, MIN_COLUMN)))
  const hard = widths.map((natural) => Math.min(natural, MIN_CUT_COLUMN))
  let total = widths.reduce((sum, value) => sum + value, 0) + 2 * Math.max(0, widths.length - 1)
  for (const floors of [soft, hard]) {
    while (total > width) {
      let widest = -1
      widths.forEach((value, index) => {
        if (value > floors[index] && (widest === -1 || value > widths[widest])) widest = index
      })
      if (widest === -1) break
      widths[widest] -= 1
      total -= 1
    }
  }
  return rows.map((row) => row.map((text, index) => (text.length > widths[index] ? `${text.slice(0, widths[index] - 1)}…` : text)))
}

/** Builds the UI over the given streams. */
export const createUi = (options: UiOptions): Ui => {
  const { stdout, stderr, json, env } = options
  const interactive = !json && stdout.isTTY === true && env.CI === undefined && env.TERM !== "dumb"
  const canAsk = interactive && options.stdin?.isTTY === true
  const width = !json && stdout.isTTY === true && typeof stdout.columns === "number" && stdout.columns > 0 ? stdout.columns : undefined
  const table = <Row>(rows: ReadonlyArray<Row>, columns: ReadonlyArray<Column<Row>>) => {
    const cells = [columns.map((column) => column.header), ...rows.map((row) => columns.map((column) => cell(column.value(row))))]
    for (const text of formatColumns(width === undefined ? cells : fitColumns(cells, width))) line(text)
  }
  const line = (text = "") => void stdout.write(`${text}\n`)
  const error = (text: string) => void stderr.write(`${text}\n`)
  const data = (value: unknown) => void stdout.write(`${JSON.stringify(value, null, 2)}\n`)
  const progress = json ? error : line

  return {
    json,
    interactive,
    canAsk,
    line,
    error,
    data,
    result: (value, render) => (json ? data(value) : render()),
    table,
    list: (rows, columns, text) => {
      if (rows.length === 0) return line(text.empty)
      table(rows, columns)
      if (text.total !== undefined && text.total > rows.length) line(`Showing ${rows.length} of ${text.total} ${text.noun}; raise --limit to see more.`)
      else if (text.total === undefined && text.more === true) line(`Showing the first ${rows.length} ${text.noun}; raise --limit to see more.`)
    },
    spinner: async (message) => {
      if (!interactive) {
        // Plain lines: each message once, even when it is repeated (a poll that reads the same
        // status again, a stop with the last status it showed).
        let shown = message
        progress(message)
        const show = (text: string) => {
          if (text !== shown) progress((shown = text))
        }
        return { update: show, stop: (done) => done && show(done), fail: (failed) => failed && error(failed) }
      }
      const clack = await import("@clack/prompts")
      const spin = clack.spinner({ output: stdout as Writable })
      spin.start(message)
      return { update: (text) => spin.message(text), stop: (done) => spin.stop(done), fail: (failed) => spin.error(failed) }
    },
    confirm: async (message, { nonInteractive }) => {
      if (!canAsk) return nonInteractive
      const clack = await import("@clack/prompts")
      const answer = await clack.confirm({ message, output: stdout as Writable })
      if (clack.isCancel(answer)) throw new CliError("Cancelled.", 1)
      return answer
    }
  }
}
