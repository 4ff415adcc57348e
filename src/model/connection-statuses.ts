/** Connection statuses, in lifecycle order. */
export const CONNECTION_STATUSES = ['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];
