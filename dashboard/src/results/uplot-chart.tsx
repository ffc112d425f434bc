/**
 * A uPlot chart in Preact: created in an effect, resized with its container (down to 375 px wide
 * screens), destroyed on unmount. uPlot styles its elements through the CSSOM (element.style), which
 * the dashboard's CSP allows; it sets no style attribute.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface UPlotChartProps {
  /** Options without width and height: the width follows the container. */
  options: Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
  height: number;
  /** For tests and CSS. */
  name: string;
}

export function UPlotChart({ options, data, height, name }: UPlotChartProps) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const width = () => Math.max(200, Math.floor(el.clientWidth));
    const chart = new uPlot({ ...options, width: width(), height }, data, el);
    const observer = new ResizeObserver(() => {
      if (chart.width !== width()) chart.setSize({ width: width(), height });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
  }, [options, data, height]);
  return <div class="results-chart" data-chart={name} ref={container} aria-hidden="true" />;
}

/** Distinct colours for variants, control first; readable on white. */
export const VARIANT_COLORS = ['#1f5fbf', '#d1492e', '#2e8b57', '#8a4fbf', '#b8860b', '#0f7f8f', '#c2185b', '#5d4037'];

export function variantColor(index: number): string {
  return VARIANT_COLORS[index % VARIANT_COLORS.length]!;
}
