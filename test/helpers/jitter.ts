/**
 * Slack for a gap measured at a test web server: the server logs sub-millisecond
 * arrival times, while a store keeps whole milliseconds and timers fire a little late
 * or early. A gap a test expects is met if it is at least the gap less this.
 */
export const JITTER_MS = 5;
