/**
 * The `Scope` of one request on the Node runner, as the platform gives each request one. Most
 * routes never use it, so the real scope is made on first use and closed with the request; until
 * then it costs one small object.
 */
import { Effect, ExecutionStrategy, type Exit, Scope } from "effect"
import { pipeArguments } from "effect/Pipeable"

export class RequestScope implements Scope.CloseableScope {
  declare readonly [Scope.ScopeTypeId]: Scope.ScopeTypeId
  declare readonly [Scope.CloseableScopeTypeId]: Scope.CloseableScopeTypeId
  declare readonly strategy: ExecutionStrategy.ExecutionStrategy
  /** The real scope, once something used this one. */
  real: Scope.CloseableScope | undefined
  private closedWith: Exit.Exit<unknown, unknown> | undefined

  /** The real scope (already closed when this one is: what is added to it then runs at once). */
  private get scope(): Effect.Effect<Scope.CloseableScope> {
    if (this.real !== undefined) return Effect.succeed(this.real)
    return Effect.flatMap(Scope.make(), (made) => {
      if (this.real !== undefined) return Effect.succeed(this.real)
      this.real = made
      return this.closedWith === undefined ? Effect.succeed(made) : Effect.as(Scope.close(made, this.closedWith), made)
    })
  }

  /** Used by `Scope.fork` (Effect's scopes implement it; it is not in the public interface). */
  fork(strategy: ExecutionStrategy.ExecutionStrategy): Effect.Effect<Scope.CloseableScope> {
    return Effect.flatMap(this.scope, (scope) => Scope.fork(scope, strategy))
  }

  /** Used by `Scope.addFinalizer` and everything built on it. */
  addFinalizer(finalizer: (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<void>): Effect.Effect<void> {
    return Effect.flatMap(this.scope, (scope) => Scope.addFinalizerExit(scope, finalizer))
  }

  /** Used by `Scope.close`. */
  close(exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.closedWith !== undefined) return Effect.void
      this.closedWith = exit
      return this.real === undefined ? Effect.void : Scope.close(this.real, exit)
    })
  }

  pipe() {
    return pipeArguments(this, arguments)
  }
}

Object.defineProperty(RequestScope.prototype, "strategy", { value: ExecutionStrategy.sequential })
Object.defineProperty(RequestScope.prototype, Scope.ScopeTypeId, { value: Scope.ScopeTypeId })
Object.defineProperty(RequestScope.prototype, Scope.CloseableScopeTypeId, { value: Scope.CloseableScopeTypeId })
