/**
 * pg type parsers: int8 (bigint) values such as byte sizes and ledger sums are returned as numbers.
 * Values above 2^53 are not expected in this schema (bytes, credits, counters).
 */
import pg from "pg";

pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));
