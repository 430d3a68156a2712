/** A host's row as one store transaction reads and changes it (both stores keep these facts). */
export interface HostRow {
  host: string;
  /** The politeness budget it counts against: the host itself, or `ip:ADDRESS`. */
  budget: string;
  queued: number;
  /** Depth of its shallowest queued URL (meaningful while queued > 0). */
  minDepth: number;
  /** URLs of the host ever queued: what --max-pages-per-host counts. */
  taken: number;
  retired: boolean;
}
