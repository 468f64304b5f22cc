declare module "autocannon" {
  interface Histogram {
    readonly average: number
    readonly p50: number
    readonly p99: number
    readonly total: number
  }
  interface Options {
    readonly url: string
    readonly method?: string
    readonly headers?: Record<string, string>
    readonly body?: string | Buffer
    readonly connections?: number
    readonly pipelining?: number
    readonly duration?: number
    readonly warmup?: { readonly connections?: number; readonly duration?: number }
  }
  interface Result {
    readonly requests: Histogram
    readonly latency: Histogram
    readonly errors: number
    readonly timeouts: number
    readonly non2xx: number
  }
  function autocannon(options: Options): PromiseLike<Result>
  export default autocannon
}
