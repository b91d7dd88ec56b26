// Measuring on a noisy two-core machine: tinybench times each call, and compared variants take turns
// in short rounds, so a slow minute (another build, a GC storm) hits both sides alike.
import { Bench } from 'tinybench';

export type BenchFn = () => unknown;

export interface Timing {
  /** Median latency in milliseconds. */
  readonly medianMs: number;
  readonly samples: number;
}

export interface Comparison {
  readonly a: Timing;
  readonly b: Timing;
  /** a's median over b's. */
  readonly ratio: number;
}

export interface InterleaveOptions {
  readonly rounds: number;
  /** Calls of each variant per round. */
  readonly iterations: number;
}

/**
 * `a` and `b` in alternating order (AB, BA, AB…), `iterations` calls each per round; one round of
 * each first warms up caches and the JIT and is not counted.
 */
export async function interleaved(a: BenchFn, b: BenchFn, options: InterleaveOptions): Promise<Comparison> {
  const samples: [number[], number[]] = [[], []];
  const variants = [a, b] as const;
  for (let round = -1; round < options.rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    const bench = new Bench({ iterations: options.iterations, time: 0, warmup: false, retainSamples: true, throws: true });
    for (const i of order) bench.add(String(i), variants[i]!);
    await bench.run();
    if (round < 0) continue;
    for (const task of bench.tasks) samples[Number(task.name)]!.push(...latencySamples(task.result));
  }
  const [timingA, timingB] = samples.map(timing) as [Timing, Timing];
  return { a: timingA, b: timingB, ratio: timingA.medianMs / timingB.medianMs };
}

/** One variant alone, for a time budget after a warm-up. */
export async function measure(fn: BenchFn, timeMs: number): Promise<Timing> {
  const bench = new Bench({ time: timeMs, warmupTime: Math.min(timeMs / 4, 500), retainSamples: true, throws: true });
  bench.add('fn', fn);
  await bench.run();
  return timing(latencySamples(bench.tasks[0]!.result));
}

/** Every sample of a finished task, or the error that stopped it. */
function latencySamples(result: (Bench['tasks'][number])['result']): readonly number[] {
  if (result.state === 'errored') throw result.error;
  if (result.state !== 'completed' || !result.latency.samples) throw new Error(`benchmark task ended as ${result.state}`);
  return result.latency.samples;
}

function timing(samples: readonly number[]): Timing {
  return { medianMs: median(samples), samples: samples.length };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
