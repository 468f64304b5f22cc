const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"])
const LOCATIONS = new Set(["query", "header", "path", "cookie"])
const STATUS = /^([1-5]\d\d|[1-5]XX|default)$/

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const resolvePointer = (doc: unknown, ref: string): unknown =>
  ref
    .slice(2)
    .split("/")
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>((node, key) => (isObject(node) || Array.isArray(node) ? (node as Json)[key] : undefined), doc)

const collectRefs = (node: unknown, found: Array<string> = []): Array<string> => {
  if (Array.isArray(node)) node.forEach((item) => collectRefs(item, found))
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") found.push(value)
      else collectRefs(value, found)
    }
  }
  return found
}

/**
 * A compact structural check of an OpenAPI 3.1 document (no validator is installed): the
 * top-level shape, every operation's responses and parameters, path templates, security
 * requirements, unique operation ids and resolvable local `$ref`s. Returns the problems found.
 */
export const validateOpenApi31 = (doc: unknown): Array<string> => {
  const problems: Array<string> = []
  const fail = (where: string, what: string) => problems.push(`${where}: ${what}`)
  if (!isObject(doc)) return ["document: not an object"]
  if (typeof doc.openapi !== "string" || !/^3\.1\.\d+$/.test(doc.openapi)) fail("openapi", "must be 3.1.x")
  const info = doc.info
  if (!isObject(info) || typeof info.title !== "string" || typeof info.version !== "string") fail("info", "needs title and version")
  if (doc.servers !== undefined && (!Array.isArray(doc.servers) || !doc.servers.every((s) => isObject(s) && typeof s.url === "string"))) {
    fail("servers", "each needs a url")
  }
  const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {}
  if (!isObject(doc.paths)) return [...problems, "paths: must be an object"]
  const operationIds = new Set<string>()
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith("/")) fail(path, "path must start with /")
    if (!isObject(item)) {
      fail(path, "path item must be an object")
      continue
    }
    const templated = Array.from(path.matchAll(/\{([^}]+)\}/g), (m) => m[1])
    for (const [method, op] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`
      if (!METHODS.has(method)) fail(where, "unknown method")
      if (!isObject(op)) {
        fail(where, "operation must be an object")
        continue
      }
      if (typeof op.operationId !== "string" || op.operationId === "") fail(where, "operationId missing")
      else if (operationIds.has(op.operationId)) fail(where, `duplicate operationId ${op.operationId}`)
      else operationIds.add(op.operationId)
      const parameters = op.parameters === undefined ? [] : op.parameters
      if (!Array.isArray(parameters)) fail(where, "parameters must be an array")
      const seen = new Set<string>()
      for (const parameter of Array.isArray(parameters) ? parameters : []) {
        if (!isObject(parameter) || typeof parameter.name !== "string" || !LOCATIONS.has(String(parameter.in))) {
          fail(where, "parameter needs name and in")
          continue
        }
        const key = `${parameter.in}:${parameter.name}`
        if (seen.has(key)) fail(where, `duplicate parameter ${key}`)
        seen.add(key)
        if (!isObject(parameter.schema)) fail(where, `parameter ${key} needs a schema`)
        if (parameter.in === "path" && (parameter.required !== true || !templated.includes(parameter.name))) {
          fail(where, `path parameter ${parameter.name} must be required and in the template`)
        }
      }
      for (const name of templated) if (!seen.has(`path:${name}`)) fail(where, `template parameter ${name} not declared`)
      if (op.requestBody !== undefined && (!isObject(op.requestBody) || !isObject(op.requestBody.content) || Object.keys(op.requestBody.content).length === 0)) {
        fail(where, "requestBody needs content")
      }
      if (!isObject(op.responses) || Object.keys(op.responses).length === 0) {
        fail(where, "responses must be a non-empty object")
        continue
      }
      for (const [status, response] of Object.entries(op.responses)) {
        if (!STATUS.test(status)) fail(where, `bad status ${status}`)
        if (!isObject(response) || typeof response.description !== "string") fail(`${where} ${status}`, "response needs a description")
        else if (response.content !== undefined) {
          for (const [type, media] of Object.entries(response.content as Json)) {
            if (!isObject(media) || !isObject(media.schema)) fail(`${where} ${status} ${type}`, "media type needs a schema")
          }
        }
      }
      if (op.security !== undefined) {
        if (!Array.isArray(op.security)) fail(where, "security must be an array")
        for (const requirement of Array.isArray(op.security) ? op.security : []) {
          for (const name of Object.keys(requirement as Json)) if (!(name in schemes)) fail(where, `unknown security scheme ${name}`)
        }
      }
    }
  }
  for (const ref of collectRefs(doc)) {
    if (!ref.startsWith("#/")) fail("$ref", `${ref} is not local`)
    else if (!isObject(resolvePointer(doc, ref))) fail("$ref", `${ref} does not resolve`)
  }
  return problems
}
