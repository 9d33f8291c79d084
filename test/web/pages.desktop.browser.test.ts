// test-process: own (test/web/pages-walk.ts holds one app and one browser for the whole process)
/**
 * Every browser page at a desktop size (1280 x 800, light), signed out and signed in: axe-core (no serious or
 * critical violation), status badges in words, no inline style (test/web/pages-walk.ts).
 */
import { test } from "node:test";
import { walkEveryPage, walkTitle } from "./pages-walk.ts";

test(walkTitle(1280, 800), (t) => walkEveryPage(t, 1280, 800));
