import { boundedInt } from './bounded-int.js';

/** Debug capture (docs/debug-capture.md): how long and how much is kept, and how much may wait to be written. */
export interface DebugCaptureSettings {
  /** Captures older than this are deleted by the hourly sweep (`GATEWAY_DEBUG_CAPTURE_RETENTION_DAYS`). */
  retentionDays: number;
  /** A key keeps at most this many captures, the oldest deleted first (`GATEWAY_DEBUG_CAPTURE_MAX_PER_KEY`). */
  maxPerKey: number;
  /** Each part (received, each upstream attempt, answer) is cut to this many bytes (`GATEWAY_DEBUG_CAPTURE_MAX_PART_BYTES`). */
  maxPartBytes: number;
  /** Captures waiting to be written; past it new ones are dropped and counted (`GATEWAY_DEBUG_CAPTURE_QUEUE`). */
  queueSize: number;
}

export const DEBUG_CAPTURE_DEFAULTS: DebugCaptureSettings = {
  retentionDays: 7,
  maxPerKey: 1_000,
  maxPartBytes: 1024 * 1024,
  queueSize: 64,
};

export function readDebugCaptureSettings(env: NodeJS.ProcessEnv = process.env): DebugCaptureSettings {
  const d = DEBUG_CAPTURE_DEFAULTS;
  return {
    retentionDays: boundedInt(env, 'GATEWAY_DEBUG_CAPTURE_RETENTION_DAYS', d.retentionDays, 1, 90),
    maxPerKey: boundedInt(env, 'GATEWAY_DEBUG_CAPTURE_MAX_PER_KEY', d.maxPerKey, 1, 100_000),
    maxPartBytes: boundedInt(env, 'GATEWAY_DEBUG_CAPTURE_MAX_PART_BYTES', d.maxPartBytes, 1024, 16 * 1024 * 1024),
    queueSize: boundedInt(env, 'GATEWAY_DEBUG_CAPTURE_QUEUE', d.queueSize, 1, 10_000),
  };
}
