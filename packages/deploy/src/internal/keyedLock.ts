import { Effect } from "effect"

/**
 * One holder per key at a time in this process (a platform's repository being created), other keys
 * free; a key's entry lives while someone holds or waits for it.
 */
export const makeKeyedLock = (): <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> => {
  const held = new Map<string, { readonly semaphore: Effect.Semaphore; users: number }>()
  return (key, effect) =>
    Effect.suspend(() => {
      const entry = held.get(key) ?? { semaphore: Effect.unsafeMakeSemaphore(1), users: 0 }
      held.set(key, entry)
      entry.users += 1
      return entry.semaphore.withPermits(1)(effect).pipe(
        Effect.ensuring(Effect.sync(() => {
          entry.users -= 1
          if (entry.users === 0) held.delete(key)
        }))
      )
    })
}
