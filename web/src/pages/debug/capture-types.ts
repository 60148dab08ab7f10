/** The console API's debug capture objects (docs/console-api.md, "Debug capture"). */

export interface CaptureSetting {
  object: 'debug_capture_setting';
  api_key_id: string;
  capturing: boolean;
  until: string | null;
}

export interface CaptureSummary {
  id: string;
  api_key_id: string;
  request_id: string;
  created_at: string;
  endpoint: string;
  model: string | null;
  status_code: number;
  bytes: number;
}

export interface CapturePart {
  text: string;
  truncated_from_bytes?: number;
}

export interface CaptureDetail extends CaptureSummary {
  received: { headers: Record<string, string>; body: CapturePart };
  upstream: {
    attempts: Array<{
      provider: string;
      upstream_model: string;
      url: string;
      started_at: string;
      headers: Record<string, string>;
      body: CapturePart;
    }>;
    attempts_not_kept: number;
  };
  answer: { kind: 'json' | 'stream' | 'none'; status_code: number; error_code: string | null; body: CapturePart };
}

export type DiffLine = { op: 'same' | 'removed' | 'added'; text: string } | { op: 'skip'; count: number };

export interface CaptureDiff {
  attempt: number | null;
  comparable: boolean;
  reason: string | null;
  item_list: string | null;
  items: Array<{
    index: number;
    status: 'unchanged' | 'changed' | 'added' | 'removed';
    role: string | null;
    received_chars: number;
    sent_chars: number;
    lines?: DiffLine[];
  }>;
  other_members: DiffLine[];
  summary: {
    unchanged: number;
    changed: number;
    added: number;
    removed: number;
    received_chars: number;
    sent_chars: number;
  };
}
