import { formatId, ID_MAX_TIME, ID_RANDOM_BYTES, type IdPrefix } from "@core/contracts"
import { Clock, Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"

/** Makes prefixed, time-sortable ids (`usr_01J…`) in the format of `@core/contracts`' id schemas. */
export interface IdGenerator {
  readonly make: (prefix: IdPrefix) => Effect.Effect<string>
}

/** The id generator of this process. */
export class Ids extends Context.Tag("@core/kernel/Ids")<Ids, IdGenerator>() {}

/**
 * A new id with the given prefix.
 *
 * @example
 * const id = yield* Ids.make("plt")
 */
export const make = (prefix: IdPrefix): Effect.Effect<string, never, Ids> => Effect.flatMap(Ids, (ids) => ids.make(prefix))

const RANDOM_LIMIT = 1n << BigInt(ID_RANDOM_BYTES * 8)

const toBytes = (value: bigint): Uint8Array => {
  const bytes = new Uint8Array(ID_RANDOM_BYTES)
  let rest = value
  for (let i = ID_RANDOM_BYTES - 1; i >= 0; i--) {
    bytes[i] = Number(rest & 0xffn)
    rest >>= 8n
  }
  return bytes
}

const fromBytes = (bytes: Uint8Array): bigint => bytes.reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n)

const clampTime = (millis: number): number => Math.min(Math.max(0, Math.floor(millis)), ID_MAX_TIME)

/**
 * A generator that takes the time from `Clock` and 80 random bits from `node:crypto`. Within one
 * millisecond (or if the clock steps back) it increments the previous random part, so the ids of
 * one process are strictly increasing.
 */
export const makeLive: Effect.Effect<IdGenerator> = Effect.sync(() => {
  let lastTime = -1
  let lastRandom = 0n
  const advance = (now: number): void => {
    if (now > lastTime) {
      lastTime = now
      lastRandom = fromBytes(randomBytes(ID_RANDOM_BYTES))
    } else {
      lastRandom += 1n
      if (lastRandom >= RANDOM_LIMIT) {
        lastTime = Math.min(lastTime + 1, ID_MAX_TIME)
        lastRandom = 0n
      }
    }
  }
  return {
    make: (prefix) =>
      Effect.map(Clock.currentTimeMillis, (millis) => {
        advance(clampTime(millis))
        return formatId(prefix, lastTime, toBytes(lastRandom))
      })
  }
})

/**
 * A deterministic generator for tests: the time from `Clock` (`TestClock` starts at 0) and a
 * counter per prefix instead of randomness, so the first user id is `usr_00000000000000000000000001`.
 */
export const makeTest: Effect.Effect<IdGenerator> = Effect.sync(() => {
  const counters = new Map<IdPrefix, bigint>()
  return {
    make: (prefix) =>
      Effect.map(Clock.currentTimeMillis, (millis) => {
        const count = (counters.get(prefix) ?? 0n) + 1n
        counters.set(prefix, count)
        return formatId(prefix, clampTime(millis), toBytes(count % RANDOM_LIMIT))
      })
  }
})

/** The live generator. */
export const layer: Layer.Layer<Ids> = Layer.effect(Ids, makeLive)

/** The deterministic generator (a fresh counter each time the layer is built). */
export const layerTest: Layer.Layer<Ids> = Layer.effect(Ids, makeTest)
