import type { UsageRecordsTable } from '../store/schema.js';

export type UsageRecord = UsageRecordsTable;
