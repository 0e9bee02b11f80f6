/** Token counts in the words rawr's lines use: "112k", "519". */
export const kTokens = (n: number): string => (n >= 1000 ? `${Math.round(n / 1000)}k` : String(n));
