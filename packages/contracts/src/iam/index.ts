export * from "./accounts.js"
export * from "./organization-plugin.js"
export * from "./organizations.js"
export * from "./authorization.js"
