/** What an agent tool does, as far as output filtering is concerned. */
export type ToolKind = 'shell' | 'read' | 'search' | 'list' | 'edit' | 'other';
