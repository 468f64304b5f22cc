export * from "./schemas.js"
export * from "./routes.js"
export * from "./features.js"
export * from "./resources.js"
