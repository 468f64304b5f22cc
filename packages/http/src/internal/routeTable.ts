/**
 * The route table of the Node runner: catalogued paths matched as `@effect/platform`'s router
 * (find-my-way) matches them — case-insensitive fixed words, a trailing slash and repeated slashes
 * ignored, fixed words before parameters (falling back to a parameter when the fixed branch leads
 * nowhere), a parameter at most 100 characters, HEAD served by GET — compiled once per method.
 */
import { Route } from "@core/kernel"

/** What a match yields: the route, its decoded parameters and the query string the router parses. */
export interface Match<T> {
  readonly value: T
  readonly params: Record<string, string>
  readonly query: string
}

interface Node<T> {
  readonly fixed: Map<string, Node<T>>
  param: Node<T> | undefined
  value: T | undefined
  names: ReadonlyArray<string>
}

const makeNode = <T>(): Node<T> => ({ fixed: new Map(), param: undefined, value: undefined, names: [] })

/** Routes by method; a method's whole-word paths also in one map (the common case, one lookup). */
export interface Table<T> {
  readonly trees: Map<string, Node<T>>
  readonly exact: Map<string, Map<string, T>>
}

const MAX_PARAM_LENGTH = 100
const PARAM = /^:([A-Za-z_][A-Za-z0-9_]*)$/

/** A path's words, its slashes normalized as the router normalizes them. */
const wordsOf = (path: string): Array<string> => path.replace(/\/\/+/g, "/").replace(/(.)\/$/, "$1").split("/").slice(1)

/** Compile routes (`{ method, path }` in the catalogue's form) into a table; a duplicate or a partial-word parameter throws. */
export const make = <T>(routes: ReadonlyArray<{ readonly method: string; readonly path: string; readonly value: T }>): Table<T> => {
  const trees = new Map<string, Node<T>>()
  const exact = new Map<string, Map<string, T>>()
  for (const { method, path, value } of routes) {
    let node = trees.get(method) ?? makeNode<T>()
    trees.set(method, node)
    const names: Array<string> = []
    for (const word of wordsOf(Route.routerPath(path))) {
      const param = PARAM.exec(word)
      if (param !== null) {
        // One parameter node per position, as in find-my-way; each route keeps its own names.
        names.push(param[1])
        node.param ??= makeNode()
        node = node.param
        continue
      }
      if (/[:*(]/.test(word)) throw new Error(`RouteNode: unsupported path pattern ${method} ${path}`)
      const key = word.toLowerCase()
      let next = node.fixed.get(key)
      if (next === undefined) node.fixed.set(key, next = makeNode())
      node = next
    }
    if (node.value !== undefined) throw new Error(`RouteNode: ${method} ${path} is declared twice`)
    node.value = value
    node.names = names
    if (names.length === 0) {
      const byPath = exact.get(method) ?? new Map<string, T>()
      exact.set(method, byPath)
      byPath.set(`/${wordsOf(Route.routerPath(path)).join("/").toLowerCase()}`, value)
    }
  }
  return { trees, exact }
}

/** Whether `%hh` encodes one of `# $ & + , / : ; = ? @ %`, which `decodeURI` leaves encoded. */
const reservedOf = (high: number, low: number): string | undefined => {
  const pair = String.fromCharCode(high, low).toUpperCase()
  return RESERVED[pair]
}

const RESERVED: Record<string, string> = {
  "25": "%", "23": "#", "24": "$", "26": "&", "2B": "+", "2C": ",", "2F": "/", "3A": ":", "3B": ";", "3D": "=", "3F": "?", "40": "@"
}

/** The path the router matches, or `undefined` when it cannot be decoded (the router's 404). */
interface Target {
  readonly path: string
  /** What follows the first `?`, `;` or `#`. */
  readonly query: string
  /** Parameters still hold `%hh` of reserved characters, decoded one by one. */
  readonly decodeParams: boolean
}

/** find-my-way's `safeDecodeURI`: the path before `?`, `;` or `#`, decoded except for reserved characters. */
const targetOf = (url: string): Target | undefined => {
  let path = url
  if (path.charCodeAt(0) !== 47) path = path.replace(/^https?:\/\/.*?\//, "/")
  if (path.includes("//")) path = path.replace(/\/\/+/g, "/")
  let decode = false
  let decodeParams = false
  let query = ""
  for (let i = 1; i < path.length; i++) {
    const code = path.charCodeAt(i)
    if (code === 37) {
      const high = path.charCodeAt(i + 1)
      const low = path.charCodeAt(i + 2)
      if (reservedOf(high, low) === undefined) decode = true
      else {
        decodeParams = true
        if (high === 50 && low === 53) {
          decode = true
          path = path.slice(0, i + 1) + "25" + path.slice(i + 1)
          i += 2
        }
        i += 2
      }
    } else if (code === 63 || code === 59 || code === 35) {
      query = path.slice(i + 1)
      path = path.slice(0, i)
      break
    }
  }
  if (decode) {
    try {
      path = decodeURI(path)
    } catch {
      return undefined
    }
  }
  if (path.length > 1 && path.charCodeAt(path.length - 1) === 47) path = path.slice(0, -1)
  return { path, query, decodeParams }
}

/** find-my-way's `safeDecodeURIComponent`: the reserved characters `decodeURI` left encoded. */
const decodeParam = (value: string): string =>
  value.indexOf("%") === -1 ? value : value.replace(/%([0-9A-Fa-f])([0-9A-Fa-f])/g, (hh, high: string, low: string) =>
    reservedOf(high.charCodeAt(0), low.charCodeAt(0)) ?? hh)

/** A parameter longer than the router allows: no route at all (find-my-way does not look further). */
const TOO_LONG = Symbol("TooLong")

const walk = <T>(
  node: Node<T>,
  words: ReadonlyArray<string>,
  index: number,
  values: Array<string>,
  decodeParams: boolean
): Node<T> | undefined | typeof TOO_LONG => {
  if (index === words.length) return node.value === undefined ? undefined : node
  const word = words[index]
  const fixed = node.fixed.get(word.toLowerCase())
  if (fixed !== undefined) {
    const found = walk(fixed, words, index + 1, values, decodeParams)
    if (found !== undefined) return found
  }
  if (node.param === undefined || word === "") return undefined
  const value = decodeParams ? decodeParam(word) : word
  if (value.length > MAX_PARAM_LENGTH) return TOO_LONG
  values.push(value)
  const found = walk(node.param, words, index + 1, values, decodeParams)
  if (found === undefined) values.pop()
  return found
}


const findIn = <T>(table: Table<T>, method: string, url: string): Match<T> | undefined => {
  const tree = table.trees.get(method)
  if (tree === undefined) return undefined
  const target = targetOf(url)
  if (target === undefined) return undefined
  const exact = table.exact.get(method)?.get(target.path.toLowerCase())
  if (exact !== undefined) return { value: exact, params: {}, query: target.query }
  const values: Array<string> = []
  const found = walk(tree, target.path.split("/"), 1, values, target.decodeParams)
  if (found === undefined || found === TOO_LONG) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < found.names.length; i++) params[found.names[i]] = values[i]
  return { value: found.value!, params, query: target.query }
}

/** The route of a request (a HEAD without its own route is served by GET), or `undefined`. */
export const find = <T>(table: Table<T>, method: string, url: string): Match<T> | undefined =>
  findIn(table, method, url) ?? (method === "HEAD" ? findIn(table, "GET", url) : undefined)

/** One part of a query, as fast-querystring decodes it: `+` a space, broken encoding kept as sent. */
const decodeQueryPart = (part: string): string => {
  const spaced = part.includes("+") ? part.replace(/\+/g, " ") : part
  if (!spaced.includes("%")) return spaced
  try {
    return decodeURIComponent(spaced) || spaced
  } catch {
    return spaced
  }
}

/** The router's search parameters of a query string (find-my-way's fast-querystring): a repeated name becomes an array. */
export const searchParamsOf = (query: string): Record<string, string | Array<string>> => {
  const record: Record<string, string | Array<string>> = Object.create(null)
  for (const pair of query.split("&")) {
    if (pair === "") continue
    const equals = pair.indexOf("=")
    const name = decodeQueryPart(equals === -1 ? pair : pair.slice(0, equals))
    const value = equals === -1 ? "" : decodeQueryPart(pair.slice(equals + 1))
    const known = record[name]
    if (known === undefined) record[name] = value
    else if (Array.isArray(known)) known.push(value)
    else record[name] = [known, value]
  }
  return record
}
