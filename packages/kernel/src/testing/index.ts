export * as TestDatabase from "./TestDatabase.js"
export { type HttpHarness, type Listening, makeHttpHarness, type TestRequestInit } from "./Harness.js"
export { type BuildCacheOptions, cachedFolder } from "./BuildCache.js"
export { OPEN_REDIRECTS, SAFE_REDIRECTS } from "./OpenRedirects.js"
