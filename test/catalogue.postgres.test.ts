import { catalogueSuite } from "./catalogue.suite.js";

catalogueSuite("postgres");
