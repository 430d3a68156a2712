export { Fetcher } from './fetcher.js';
export type {
  FetchErrorReason,
  FetcherOptions,
  FetchFailure,
  FetchOutcome,
  FetchSuccess,
  HttpExchange,
} from './types.js';
