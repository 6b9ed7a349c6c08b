export {
  parseSQLQuery,
  validateAllowableSQLQuery,
} from "../../../node_modules/ponder/dist/types/utils/sql-parse.js";
