import type { EnvironmentHelp, OptionHelp } from "./spec.js"

/** Options and variables several commands share in their help. */

export const org: OptionHelp = { flags: "--org <id|slug>", description: "The organization (default: $CORE_ORG, else the session's active one)" }
export const limit: OptionHelp = { flags: "--limit <n>", description: "Show at most n rows" }
export const yes: OptionHelp = { flags: "--yes", description: "Do it without asking (needed when there is no terminal to ask on)" }
export const pages: OptionHelp = { flags: "--cursor <c>, --all", description: "The next page, or every page" }
export const platformFlag: OptionHelp = { flags: "--platform <id>", description: "The platform (default: the one you logged in to)" }
export const coreOrg: EnvironmentHelp = { name: "CORE_ORG", description: "The organization when --org is not given (an org_… id or a slug)" }
export const home: EnvironmentHelp = { name: "HOME", description: "Credentials are read from and written to $HOME/.core/credentials.json" }
export const apiUrl: EnvironmentHelp = { name: "CORE_API_URL", description: "The gateway address (default: http://localhost:8787)" }
export const iamUrl: EnvironmentHelp = { name: "CORE_IAM_URL", description: "The identity service address (default: $CORE_API_URL/api/v1/iam)" }
