import { packDirectory, scanDirectory } from "@core/sdk"
import type { Deploy } from "@core/contracts"
import * as Fs from "node:fs/promises"
import { setTimeout as sleep } from "node:timers/promises"
import { parseOptions } from "../args.js"
import { CliError, ExitCode, usageError } from "../errors.js"
import { type CommandContext } from "../spec.js"
import { spec } from "./deploy.spec.js"
import { withSession } from "../session.js"
import type { Ui } from "../ui.js"
import { platformOf, platformOption } from "./resources.js"

const POLL_MS = 400
const FOLLOW_LIMIT_MS = 10 * 60_000

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MiB`

/** The body as a stream that reports how much has gone out: a progress bar (bytes and rate) on a terminal. */
const withProgress = (ui: Ui, body: Uint8Array): ReadableStream<Uint8Array> => {
  const started = Date.now()
  const step = 64 * 1024
  let sent = 0
  const draw = (done: boolean) => {
    if (!ui.interactive) return
    const width = 24
    const filled = Math.round((sent / Math.max(body.byteLength, 1)) * width)
    const rate = sent / Math.max((Date.now() - started) / 1000, 0.001)
    process.stderr.write(`\r  [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${mib(sent)} / ${mib(body.byteLength)}  ${mib(rate)}/s${done ? "\n" : ""}`)
  }
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= body.byteLength) {
        draw(true)
        controller.close()
        return
      }
      const chunk = body.subarray(sent, Math.min(sent + step, body.byteLength))
      sent += chunk.byteLength
      draw(false)
      controller.enqueue(new Uint8Array(chunk))
    }
  })
}

/**
 * `core deploy <dir> [--branch B] [--platform P]`: hash every file, ask which the server lacks,
 * upload only those (with a manifest of the rest) as a gzip tarball, follow the deployment until it
 * ends, print its URL; `--json` prints the final deployment record. Exit 1 when it fails.
 */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const usage = spec.usage
  const { values, positionals } = parseOptions(argv, { ...platformOption, branch: { type: "string" }, "no-follow": { type: "boolean" } }, usage)
  if (positionals.length !== 1) throw usageError(`Give one directory to deploy. Usage: ${usage}`)
  const dir = positionals[0]!
  const stat = await Fs.stat(dir).catch(() => undefined)
  if (stat === undefined || !stat.isDirectory()) throw usageError(`${dir} is not a directory. Usage: ${usage}`)
  return withSession(env, async (session) => {
    const platformId = platformOf(session, values.platform, usage)
    const { client } = session
    const files = await scanDirectory(dir)
    if (files.length === 0) throw new CliError(`${dir} holds no files to deploy.`, ExitCode.failure, "EMPTY_SITE")
    await client.deploy.createRepo({ platformId, displayName: platformId, planTier: "starter" }).catch(() => undefined)
    const { missing } = await client.deploy.missing(platformId, [...new Set(files.map((file) => file.hash))])
    const lacking = new Set(missing)
    const sending = files.filter((file) => lacking.has(file.hash))
    const kept = files.filter((file) => !lacking.has(file.hash))
    const total = files.reduce((sum, file) => sum + file.size, 0)
    if (!ui.json) ui.line(`Deploying ${files.length} ${files.length === 1 ? "file" : "files"} (${mib(total)}): ${sending.length} to upload, ${kept.length} already on the server.`)
    const archive = await packDirectory(sending, kept)
    const accepted = await client.deploy.upload(platformId, withProgress(ui, archive), values.branch === undefined ? {} : { branch: values.branch })
    if (!ui.json) ui.line(`Deployment ${accepted.deploymentId} ${accepted.status} (project ${accepted.projectName}).`)
    if (values["no-follow"] === true) {
      ui.result(accepted, () => {})
      return ExitCode.ok
    }
    const record = await follow(ui, () => client.deploy.deployments.get(platformId, accepted.deploymentId))
    ui.result(record, () => {
      if (record.status === "success") ui.line(`Live at ${record.url}`)
      else ui.error(`Deployment failed: ${record.errorMessage ?? "no reason given"}`)
    })
    return record.status === "success" ? ExitCode.ok : ExitCode.failure
  })
}

/** Poll until the deployment ends, printing each new status (a spinner on a terminal). */
export const follow = async (ui: Ui, read: () => Promise<Deploy.DeploymentRecord>): Promise<Deploy.DeploymentRecord> => {
  const spinner = ui.json ? undefined : await ui.spinner("queued")
  const deadline = Date.now() + FOLLOW_LIMIT_MS
  let last = ""
  for (;;) {
    const record = await read()
    if (record.status !== last) {
      last = record.status
      spinner?.update(record.status)
    }
    if (record.status === "success" || record.status === "failure") {
      if (record.status === "success") spinner?.stop("success")
      else spinner?.fail("failure")
      return record
    }
    if (Date.now() > deadline) throw new CliError("The deployment did not finish in 10 minutes; see core deployments show.", ExitCode.failure, "TIMEOUT")
    await sleep(POLL_MS)
  }
}
