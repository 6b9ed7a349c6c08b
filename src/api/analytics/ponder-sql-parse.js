/**
 * Ponder's own validator of client SQL (an allow-list of statement and expression nodes and of
 * functions), which `ponder` 0.16.10 (pinned exactly) uses in its `/sql` middleware but does not
 * export. The API replaces that middleware (sql-over-http.ts) and keeps the same validation, so
 * what an `@ponder/client` query may say is what Ponder itself allows.
 */
export {
  parseSQLQuery,
  validateAllowableSQLQuery,
} from "../../../node_modules/ponder/dist/esm/utils/sql-parse.js";
