import { RedisConnection } from "@core/kernel"

/**
 * The Redis client and its failover live in the kernel (identity shares them, decision 0192);
 * re-exported here for the gateway's modules and its users.
 */
export const { connect, CONNECT_WAIT_MILLIS, failover, ping, REDIS_CLIENT_OPTIONS } = RedisConnection

/** An ioredis client. */
export type Client = RedisConnection.Client
/** See the kernel's `RedisConnection.FailoverOptions`. */
export type FailoverOptions = RedisConnection.FailoverOptions
