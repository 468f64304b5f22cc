/**
 * Comments cite only what is in the repository (decision 0666): no source or test file names the
 * specification's parts by number, the design document's sections or the tracker's issues, none of
 * which this repository holds. Cite `docs/architecture.md`, an area document under `docs/` or
 * `docs/vault/`, or a decision record (`docs/decisions/NNNN-…`) instead, or let the comment stand on
 * its own.
 *
 * `ALLOWED` lists the files that still cite such documents, each with how many lines do: the domain
 * packages being reworked now (auth, billing, deploy, provisioning, registry), and one string of the
 * gateway's served OpenAPI document (code, not a comment). A listed file may not cite on more lines
 * than listed, and one that cites nothing any more must leave the list, so it only shrinks.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const SELF = relative(ROOT, fileURLToPath(import.meta.url))

/** A citation of a document the repository does not hold (written so that this file does not match it). */
const CITATION = new RegExp(["\\b[Ss]eed 0\\d", "\\bDESIGN \u00a7", "\\b[Ii]ssue \\d+"].join("|"))

/** File → how many of its lines may still cite, at most; an entry is only ever lowered or removed. */
const ALLOWED: Record<string, number> = {
  "packages/auth/src/Config.ts": 1,
  "packages/auth/src/Identity.ts": 1,
  "packages/auth/src/accounts/SessionCookie.ts": 1,
  "packages/auth/src/device/Http.ts": 1,
  "packages/auth/test/ApiKeyDescendants.test.ts": 1,
  "packages/auth/test/InvitationsNotFound.test.ts": 1,
  "packages/auth/test/OpenRedirects.test.ts": 1,
  "packages/auth/test/OrganizationsSdkConflicts.test.ts": 1,
  "packages/auth/test/OrganizationsSuspendedOwner.test.ts": 1,
  "packages/auth/test/PagesOrgSetup.test.ts": 1,
  "packages/billing/src/Config.ts": 1,
  "packages/billing/src/Errors.ts": 1,
  "packages/billing/src/Http.ts": 1,
  "packages/billing/src/Operator.ts": 1,
  "packages/billing/src/Payments.ts": 1,
  "packages/billing/src/Plans.ts": 2,
  "packages/billing/src/Subscriptions.ts": 1,
  "packages/billing/src/SubscriptionsHttp.ts": 1,
  "packages/billing/src/adapters/PaymentProviderLocal.ts": 1,
  "packages/billing/src/adapters/PaymentProviderStripe.ts": 1,
  "packages/billing/src/migrations/0001_billing.ts": 1,
  "packages/billing/src/migrations/0002_local_provider.ts": 1,
  "packages/billing/src/ports/BillingPlatforms.ts": 1,
  "packages/billing/src/ports/PaymentProvider.ts": 1,
  "packages/billing/test/InvoiceLines.test.ts": 1,
  "packages/deploy/src/CliFeatures.ts": 1,
  "packages/deploy/src/CliSecrets.ts": 1,
  "packages/deploy/src/Config.ts": 1,
  "packages/deploy/src/DeployJob.ts": 1,
  "packages/deploy/src/Deployments.ts": 2,
  "packages/deploy/src/Policy.ts": 1,
  "packages/deploy/src/adapters/SourceHostGitHub.ts": 1,
  "packages/deploy/src/index.ts": 1,
  "packages/deploy/src/migrations/0001_deploy.ts": 1,
  "packages/deploy/src/ports/BuildReporter.ts": 1,
  "packages/deploy/src/ports/SourceHost.ts": 1,
  "packages/deploy/test/SourceHostLocal.test.ts": 1,
  "packages/provisioning/src/Config.ts": 1,
  "packages/provisioning/src/CreationHttp.ts": 2,
  "packages/provisioning/src/JobControls.ts": 1,
  "packages/provisioning/src/JobCreation.ts": 1,
  "packages/provisioning/src/Jobs.ts": 1,
  "packages/provisioning/src/LocalPages.ts": 1,
  "packages/provisioning/src/PlatformStatuses.ts": 1,
  "packages/provisioning/src/adapters/EdgeProviderCloudflare.ts": 2,
  "packages/provisioning/src/adapters/EdgeProviderLocal.ts": 1,
  "packages/provisioning/src/adapters/LocalEdge.ts": 1,
  "packages/provisioning/src/adapters/cloudflare/CloudflareResources.ts": 1,
  "packages/provisioning/src/migrations/0001_jobs.ts": 1,
  "packages/provisioning/src/ports/EdgeProvider.ts": 1,
  "packages/registry/src/Entities.ts": 2,
  "packages/registry/src/Features.ts": 3,
  "packages/registry/src/Http.ts": 1,
  "packages/registry/src/Lifecycle.ts": 1,
  "packages/registry/src/Onboarding.ts": 3,
  "packages/registry/src/Platforms.ts": 3,
  "packages/registry/src/Resources.ts": 2,
  "packages/registry/src/Secrets.ts": 1,
  "packages/registry/src/migrations/0004_resources.ts": 1,
  "packages/registry/src/migrations/0006_secrets.ts": 1,
  "packages/registry/src/migrations/0007_feature_activations.ts": 1,
  "packages/registry/src/migrations/0009_onboarding.ts": 1,
  "packages/registry/src/ports/StackDefinitions.ts": 1,
  "packages/registry/test/ProvisioningJobs.test.ts": 1,
  "packages/registry/test/Resources.test.ts": 1
}

const walk = (dir: string): Array<string> => {
  let names: Array<string>
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  return names.flatMap((name) => {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) return []
    const full = join(dir, name)
    return statSync(full).isDirectory() ? walk(full) : /\.(?:ts|tsx|mts|mjs|js)$/.test(name) ? [full] : []
  })
}

const sources = [
  ...readdirSync(join(ROOT, "packages")).flatMap((pkg) => ["src", "test"].flatMap((dir) => walk(join(ROOT, "packages", pkg, dir)))),
  ...readdirSync(join(ROOT, "examples")).flatMap((example) => ["src", "test"].flatMap((dir) => walk(join(ROOT, "examples", example, dir)))),
  ...["tests", "scripts", "bench"].flatMap((dir) => walk(join(ROOT, dir)))
]
  .map((file) => relative(ROOT, file).split("\\").join("/"))
  .filter((file) => file !== SELF && !file.includes("/generated/"))
  .sort()

const citing = new Map<string, Array<string>>()
for (const file of sources) {
  const lines = readFileSync(join(ROOT, file), "utf8").split("\n")
  const hits = lines.flatMap((line, i) => (CITATION.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []))
  if (hits.length > 0) citing.set(file, hits)
}

describe("citations", () => {
  it("reads the sources it checks", () => {
    expect(sources.length).toBeGreaterThan(500)
  })

  it("no source or test file cites a document the repository does not hold, beyond the allowed", () => {
    const problems = [...citing].flatMap(([file, hits]) => (hits.length > (ALLOWED[file] ?? 0) ? hits : []))
    expect(problems).toEqual([])
  })

  it("lists only files that still cite (the list shrinks)", () => {
    const stale = Object.keys(ALLOWED).filter((file) => !citing.has(file)).map((file) => `${file}: cites nothing any more, remove its entry`)
    expect(stale).toEqual([])
  })
})
