/** What is wrong with a seed canonicalize() refused, in a user's words. */
export function seedProblem(seed: string, reason: string): string {
  // A bare host name ("example.com", "example.com/docs") is what people type.
  const bare = /^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?(\/\S*)?$/i.test(seed);
  const why =
    reason === 'unsupported-scheme' && !bare
      ? 'only http:// and https:// URLs can be crawled'
      : reason === 'too-long'
        ? 'it is longer than 2083 characters'
        : bare
          ? `it has no http:// or https://; did you mean http://${seed.includes('/') ? seed : `${seed}/`}?`
          : 'it is not a valid absolute URL';
  return `bad seed URL "${seed}": ${why}`;
}
