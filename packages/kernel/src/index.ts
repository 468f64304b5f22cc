export * from "./Errors.js"
export * as ErrorResponse from "./ErrorResponse.js"
export * as RequestId from "./RequestId.js"
export * as Validation from "./Validation.js"
