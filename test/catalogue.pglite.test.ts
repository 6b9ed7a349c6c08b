import { catalogueSuite } from "./catalogue.suite.js";

catalogueSuite("pglite");
