/** How long a connection may sit with half a packet, or idle with nothing asked of it, before it is closed. */
export const DEFAULT_IDLE_MS = 5 * 60_000;
