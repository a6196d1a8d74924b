// duckdb.mjs — run one SQL statement with DuckDB and print the rows, tab-separated:
// what docs/PIPELINE-store.md ran to read `results export --format parquet` files on a
// machine without the duckdb CLI (`duckdb -c SQL` gives the same rows, boxed).
//
//   npm install --prefix "$DIR" @duckdb/node-api      # once, anywhere
//   NODE_PATH="$DIR/node_modules" node scripts/duckdb.mjs "select length, count(*) from 'rows.parquet' group by 1 order by 1"
import { createRequire } from 'node:module';
import path from 'node:path';

// ES modules ignore NODE_PATH: resolve the package through it by hand.
const require = createRequire(path.join(process.env.NODE_PATH ?? process.cwd(), 'x.js'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));

const con = await (await DuckDBInstance.create(':memory:')).connect();
const r = await con.runAndReadAll(process.argv[2]);
console.log(r.columnNames().join('\t'));
for (const row of r.getRowsJS()) console.log(row.map((v) => (v === null ? 'NULL' : String(v))).join('\t'));
