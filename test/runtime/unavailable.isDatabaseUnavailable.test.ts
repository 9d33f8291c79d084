import assert from "node:assert/strict";
import { test } from "node:test";
import { isDatabaseUnavailable } from "../../src/db/unavailable.ts";

const withCode = (code: string) => Object.assign(new Error("x"), { code });

test("database restarts, refused connections and dropped sockets are recognised", () => {
  for (const err of [
    withCode("ECONNREFUSED"),
    withCode("ECONNRESET"),
    withCode("57P01"),
    withCode("57P03"),
    withCode("08006"),
    new Error("Connection terminated unexpectedly"),
    new Error('insert into "posts" ("caption") values ($1) - Connection terminated unexpectedly'),
    Object.assign(new Error("Knex: Timeout acquiring a connection."), { name: "KnexTimeoutError" }),
    new Error("wrapped", { cause: withCode("ECONNREFUSED") }),
  ])
    assert.equal(isDatabaseUnavailable(err), true, String(err));
});

test("query errors, constraint violations and bugs are not", () => {
  for (const err of [
    withCode("23505"),
    withCode("42P01"),
    new TypeError("x is undefined"),
    new Error("Connection terminated by the caller because of a bug"),
    undefined,
    "ECONNREFUSED",
  ])
    assert.equal(isDatabaseUnavailable(err), false, String(err));
});
