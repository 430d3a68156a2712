/**
 * What passed over the server's connections, for /metrics and /status: packets by
 * type (as decoded; a batch split over several packets counts each), bytes each way,
 * the ERROR codes sent, and connections taken. Plain counters, read when asked.
 */
export class Traffic {
  readonly packets = new Map<string, number>();
  readonly errors = new Map<string, number>();
  bytesIn = 0;
  bytesOut = 0;
  connections = 0;

  packet(type: string): void {
    this.packets.set(type, (this.packets.get(type) ?? 0) + 1);
  }

  error(codeName: string): void {
    this.errors.set(codeName, (this.errors.get(codeName) ?? 0) + 1);
  }

  snapshot(): {
    packets: Record<string, number>;
    errors: Record<string, number>;
    bytesIn: number;
    bytesOut: number;
    connections: number;
  } {
    return {
      packets: Object.fromEntries(this.packets),
      errors: Object.fromEntries(this.errors),
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      connections: this.connections,
    };
  }
}
