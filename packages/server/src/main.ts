import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import * as Args from "./Args.js"
import * as Cli from "./Cli.js"
import * as Terminal from "./Terminal.js"

NodeRuntime.runMain(
  Cli.run(Args.parse(process.argv.slice(2))).pipe(
    Effect.onExit((exit) =>
      Effect.sync(() => {
        Terminal.forProcess().clear()
        const message = Cli.report(exit)
        if (message !== undefined) process.stderr.write(`${message}\n`)
      }))
  ),
  {
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => onExit(Cli.exitCode(exit))
  }
)
