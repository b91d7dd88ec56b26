// The figures of one benchmark run: a table for people, a JSON file for tools and later comparisons.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export type Unit = '×' | 'µs' | 'ms' | 'KB';

/** One measured figure against its goal: met when `value ≤ goal`. */
export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly goal: number;
  readonly unit: Unit;
  /** How it was measured, e.g. both medians of a ratio. */
  readonly detail: string;
  /** The raw numbers behind `value`. */
  readonly data: Readonly<Record<string, number | string>>;
}

export function figure(name: string, value: number, goal: number, unit: Unit, detail: string, data: Figure['data'] = {}): Figure {
  return { name, value, goal, unit, detail, data };
}

const met = (f: Figure) => f.value <= f.goal;

export function formatValue(value: number, unit: Unit): string {
  const digits = unit === '×' ? 2 : value >= 100 ? 0 : 1;
  return unit === '×' ? `${value.toFixed(digits)}×` : `${value.toFixed(digits)} ${unit}`;
}

/** A Markdown table, so a run can be pasted into the README as it is. */
export function table(figures: readonly Figure[]): string {
  const rows = figures.map((f) => `| ${f.name} | ≤ ${formatValue(f.goal, f.unit)} | ${formatValue(f.value, f.unit)} | ${met(f) ? 'yes' : '**no**'} | ${f.detail} |`);
  return ['| figure | goal | measured | met | how |', '|---|---|---|---|---|', ...rows].join('\n');
}

export async function writeJson(file: string, figures: readonly Figure[]): Promise<void> {
  const document = {
    time: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    cpus: os.cpus().length,
    loadAverage: os.loadavg(),
    figures: figures.map((f) => ({ ...f, met: met(f) })),
    allMet: figures.every(met),
  };
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify(document, null, 2) + '\n');
}
