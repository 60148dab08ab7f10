const integer = new Intl.NumberFormat('en-US');
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

export const formatInt = (value: number) => integer.format(value);
export const formatCompact = (value: number) => compact.format(value);

/** USD with as many decimals as small amounts need (LLM requests often cost fractions of a cent). */
export function formatUsd(value: number): string {
  if (value === 0) return '$0.00';
  const abs = Math.abs(value);
  const digits = abs >= 1 ? 2 : abs >= 0.01 ? 4 : 6;
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;
}

export const microToUsd = (micro: number) => micro / 1_000_000;

export function formatDate(iso: string | null, withTime = true): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return withTime
    ? date.toLocaleString('en-GB', {
        year: 'numeric',
        month: 'short',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        timeZone: 'UTC',
      }) + ' UTC'
    : date.toLocaleDateString('en-GB', { year: 'numeric', month: 'short', day: '2-digit', timeZone: 'UTC' });
}

/** Bucket labels for chart axes: hours as "14:00" (with the day at midnight), days as "21 Nov". */
export function bucketLabel(iso: string, granularity: 'hour' | 'day'): string {
  const date = new Date(iso);
  if (granularity === 'day')
    return date.toLocaleDateString('en-GB', { day: '2-digit', month: 'short', timeZone: 'UTC' });
  const hour = `${String(date.getUTCHours()).padStart(2, '0')}:00`;
  return date.getUTCHours() === 0
    ? `${date.toLocaleDateString('en-GB', { day: '2-digit', month: 'short', timeZone: 'UTC' })} ${hour}`
    : hour;
}
