import * as Path from "node:path"
import type { DeployStorage } from "../../src/Storage.js"

/** Deploy storage whose local repositories live in `git` (the rest beside it). */
export const storageAt = (git: string): typeof DeployStorage.Service => ({
  git,
  uploads: Path.join(git, "..", "uploads"),
  blobs: Path.join(git, "..", "blobs"),
  edge: Path.join(git, "..", "edge"),
  port: 0,
  limits: { maxUploadBytes: 1024, maxFiles: 10, maxUnpackedBytes: 1024 }
})
