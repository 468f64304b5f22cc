export * from "./schemas.js"
export * from "./routes.js"
export * from "./jobs.js"
export * from "./creating.js"
