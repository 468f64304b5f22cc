import { home, apiUrl, iamUrl } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core login`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "login",
  summary: "Log in: approve this device in a browser, or store a token (--token)",
  usage: "core login [--token <token>] [--iam-url <url>] [--no-browser]",
  options: [
    { flags: "--token <token>", description: "Store this API key or session token instead of logging in interactively ('-' reads stdin)" },
    { flags: "--iam-url <url>", description: "Identity service address (default: $CORE_IAM_URL, else <api url>/api/v1/iam)" },
    { flags: "--no-browser", description: "Print the address and code without opening a browser" }
  ],
  examples: ["core login", "CORE_API_URL=http://localhost:8787 core login", "printf '%s' \"$CORE_API_KEY\" | core login --token -"],
  environment: [apiUrl, iamUrl, { name: "BROWSER", description: "The program that opens the approval page" }, home]
}
