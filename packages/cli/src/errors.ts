/** Exit codes of the `core` command. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2
} as const

/** What a {@link CliError} adds to its one-line message. */
export interface CliErrorExtras {
  /** Lines printed under the message, indented (the fields of a validation failure, a likely cause). */
  readonly lines?: ReadonlyArray<string>
  /** Structured details for `--json` (e.g. the API's `{ issues }`). */
  readonly details?: Record<string, unknown>
}

/** A failure to report as one message and an exit code (1 by default, 2 for usage errors). */
export class CliError extends Error {
  override readonly name = "CliError"
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.failure,
    readonly code: string = "FAILED",
    readonly extras: CliErrorExtras = {}
  ) {
    super(message)
  }
}

/** A command line that cannot be understood: exit code 2. */
export const usageError = (message: string, code = "USAGE"): CliError => new CliError(message, ExitCode.usage, code)
