// Types of the undici files that src/fetch/undici-parts.ts loads one by one rather than
// through undici's index: each exports what the index exports under that name.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';

  const AgentClass: typeof Agent;
  export default AgentClass;
}
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';

  const PoolClass: typeof Pool;
  export default PoolClass;
}
declare module 'undici/lib/core/connect.js' {
  import type { buildConnector } from 'undici';

  const build: typeof buildConnector;
  export default build;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  const DispatcherClass: { prototype: object };
  export default DispatcherClass;
}
declare module 'undici/lib/api/index.js' {
  const api: Record<string, unknown>;
  export default api;
}
