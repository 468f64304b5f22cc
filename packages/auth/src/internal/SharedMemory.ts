/** A counter's state: how many in its window, and how long until the window ends. */
export interface Count {
  readonly count: number
  readonly resetMillis: number
}

/** A cached value (`undefined` when none or expired) and its group's version when it was read. */
export interface Cached {
  readonly value: string | undefined
  readonly version: string
}

const MAX_COUNTERS = 100_000
const MAX_CACHED = 10_000

interface Counter {
  count: number
  readonly windowEnd: number
}

interface Group {
  readonly version: string
  readonly fields: Map<string, { readonly value: string; readonly until: number }>
}

/**
 * Counters and cached values in this process's memory, at a given time: what identity's limiters
 * and caches use without Redis, and while Redis fails. Synchronous, so that an invalidation
 * received from Redis applies at once. Bounded: expired counters are swept past 100,000 keys, and
 * the caches are emptied past 10,000 entries.
 */
export const make = () => {
  const counters = new Map<string, Counter>()
  const groups = new Map<string, Group>()
  let sequence = 0
  let cached = 0

  const live = (key: string, now: number): Counter | undefined => {
    const counter = counters.get(key)
    if (counter === undefined || counter.windowEnd > now) return counter
    counters.delete(key)
    return undefined
  }

  const sweep = (now: number) => {
    for (const [key, counter] of counters) if (counter.windowEnd <= now) counters.delete(key)
    if (counters.size >= MAX_COUNTERS) counters.clear()
  }

  const increment = (key: string, windowMillis: number, now: number): Count => {
    let counter = live(key, now)
    if (counter === undefined) {
      if (counters.size >= MAX_COUNTERS) sweep(now)
      counter = { count: 0, windowEnd: now + windowMillis }
      counters.set(key, counter)
    }
    counter.count += 1
    return { count: counter.count, resetMillis: counter.windowEnd - now }
  }

  const decrement = (key: string, now: number): void => {
    const counter = live(key, now)
    if (counter === undefined) return
    counter.count -= 1
    if (counter.count <= 0) counters.delete(key)
  }

  const peek = (key: string, now: number): Count => {
    const counter = live(key, now)
    return counter === undefined ? { count: 0, resetMillis: 0 } : { count: counter.count, resetMillis: counter.windowEnd - now }
  }

  const reset = (key: string): void => void counters.delete(key)

  const groupOf = (name: string): Group => {
    let group = groups.get(name)
    if (group === undefined) {
      group = { version: `m${++sequence}`, fields: new Map() }
      groups.set(name, group)
    }
    return group
  }

  const get = (name: string, field: string, now: number): Cached => {
    const group = groupOf(name)
    const entry = group.fields.get(field)
    if (entry === undefined || entry.until > now) return { value: entry?.value, version: group.version }
    group.fields.delete(field)
    cached--
    return { value: undefined, version: group.version }
  }

  const set = (name: string, field: string, value: string, until: number, version: string): void => {
    const group = groups.get(name)
    if (group === undefined || group.version !== version) return
    if (cached >= MAX_CACHED) {
      groups.clear()
      cached = 0
      return
    }
    if (!group.fields.has(field)) cached++
    group.fields.set(field, { value, until })
  }

  /** Drop a field, or the whole group (its next version differs from every earlier one). */
  const drop = (name: string, field?: string): void => {
    const group = groups.get(name)
    if (group === undefined) return
    if (field === undefined) {
      cached -= group.fields.size
      groups.delete(name)
      return
    }
    if (group.fields.delete(field)) cached--
    groups.set(name, { version: `m${++sequence}`, fields: group.fields })
  }

  return { increment, decrement, peek, reset, get, set, drop } as const
}

/** The memory store of one process. */
export type SharedMemory = ReturnType<typeof make>
