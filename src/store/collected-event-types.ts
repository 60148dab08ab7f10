/** An event as stored and delivered: id, type, server timestamp, data, and the merged context. */
export interface StoredEvent {
  id: string;
  type: 'page' | 'track' | 'user';
  timestamp: string;
  data: Record<string, unknown>;
  context: Record<string, unknown>;
}

/** One accepted event, ready to store: `payload` is its StoredEvent as JSON. */
export interface IntakeEvent {
  id: string;
  /** The client chose the id (an idempotency key, possibly stored already); otherwise it is a fresh timeOrderedId. */
  idFromClient: boolean;
  type: StoredEvent['type'];
  payload: string;
  /** UTF-8 bytes of `payload`: what the byte quota counts. */
  bytes: number;
}

/** Per project; 0: no limit. */
export interface StoredEventQuota {
  events: number;
  bytes: number;
}

/** The events of one request: one project, one receive time. */
export interface IntakeBatch {
  projectId: string;
  organizationId: string;
  receivedAt: number;
  events: IntakeEvent[];
  /** Project components that must receive an event, by its type. */
  componentIds: Readonly<Record<StoredEvent['type'], readonly string[]>>;
}

export interface ClaimedDelivery {
  id: string;
  project_id: string;
  project_component_id: string;
  event_id: string;
  attempts: number;
}
