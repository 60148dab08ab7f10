import { useEffect, useRef } from 'preact/hooks';
import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  DoughnutController,
  Legend,
  LinearScale,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, DoughnutController, ArcElement, Tooltip, Legend);
Chart.defaults.font.family =
  getComputedStyle(document.documentElement).getPropertyValue('--font').trim() || 'system-ui, sans-serif';
Chart.defaults.color = '#475467';
Chart.defaults.animation = false;

/** Colour-blind-friendly palette (Okabe–Ito, then Tableau), one per series. */
export const PALETTE = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#CC79A7',
  '#56B4E9',
  '#D55E00',
  '#F0E442',
  '#4E79A7',
  '#B07AA1',
  '#9C755F',
  '#BAB0AC',
];
export const colour = (index: number) => PALETTE[index % PALETTE.length]!;

/** A Chart.js chart on a canvas; rebuilt whenever `config` changes. */
export function ChartView({
  config,
  height = 280,
  label,
  testId,
}: {
  config: ChartConfiguration;
  height?: number;
  label: string;
  testId?: string;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      ...config,
      options: { responsive: true, maintainAspectRatio: false, ...config.options },
    });
    return () => chart.destroy();
  }, [config]);
  return (
    <div class="chart" style={{ height: `${height}px` }} data-testid={testId}>
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}
