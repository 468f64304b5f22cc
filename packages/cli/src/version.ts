import packageJson from "../package.json" with { type: "json" }

/** The version of `@core/cli`, from its package.json (inlined into the bundle). */
export const version: string = packageJson.version
