/** The part of autocannon@9 the crawl benchmark uses (the package ships no types). */
declare module 'autocannon' {
  function autocannon(
    options: autocannon.Options,
    done: (error: Error | null, result: autocannon.Result) => void,
  ): autocannon.Instance;
  namespace autocannon {
    export interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    }
    export interface Options {
      url: string;
      connections?: number;
      amount?: number;
      duration?: number;
      timeout?: number;
      requests?: Request[];
    }
    export interface Histogram {
      average: number;
      mean: number;
      p50: number;
      p90: number;
      p99: number;
      max: number;
      total: number;
    }
    export interface Result {
      duration: number;
      latency: Histogram & { totalCount?: number };
      requests: Histogram & { sent: number };
      errors: number;
      timeouts: number;
      non2xx: number;
      statusCodeStats: Record<string, { count: number }>;
    }
    export interface Instance {
      stop(): void;
    }
  }
  export = autocannon;
}
