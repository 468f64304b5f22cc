import { Data } from "effect"

/** A command could not do its work; `message` is printed as is and the process exits with `exitCode`. */
export class CommandFailed extends Data.TaggedError("CommandFailed")<{
  readonly message: string
  readonly exitCode: number
}> {}

/** Bad arguments: exit code 2. */
export const usage = (message: string): CommandFailed =>
  new CommandFailed({ message: `${message}\nRun core-server --help for usage.`, exitCode: 2 })

/** Bad configuration or a failed operation: exit code 1. */
export const failed = (message: string): CommandFailed => new CommandFailed({ message, exitCode: 1 })
