/** Exit codes of the `core` command. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2
} as const

/** A failure to report as one message and an exit code (1 by default, 2 for usage errors). */
export class CliError extends Error {
  override readonly name = "CliError"
  constructor(message: string, readonly exitCode: number = ExitCode.failure, readonly code: string = "FAILED") {
    super(message)
  }
}

/** A command line that cannot be understood: exit code 2. */
export const usageError = (message: string, code = "USAGE"): CliError => new CliError(message, ExitCode.usage, code)
