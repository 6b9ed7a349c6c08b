/** What the indexer stores of a token's metadata, whatever the token returns. */

/**
 * A token's name or symbol as stored: without NUL characters, which Postgres `text` refuses
 * (a token whose metadata holds them would otherwise stop the indexer on its first event).
 * A `bytes32` name (MKR, SAI) is padded with them; some `string` names carry them too.
 * @example storableText("Maker\u0000\u0000") // "Maker"
 */
export function storableText(value: string): string {
  return value.replaceAll("\u0000", "");
}
