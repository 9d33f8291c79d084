/** Minimal types for autocannon (it ships none): the programmatic API used by bench/run.ts. */
declare module "autocannon" {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
  }
  interface Stat {
    average: number;
    p50: number;
    p99: number;
    p99_9: number;
    /** requests: how many completed in the run. */
    total: number;
  }
  interface Result {
    requests: Stat;
    latency: Stat;
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
