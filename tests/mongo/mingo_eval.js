// Evaluates the MongoDB store's update documents with mingo, an implementation of MongoDB's
// query and aggregation languages independent of the server and of the driver:
//   node mingo_eval.js <cases.json>
// cases.json: {"now": ms, "cases": [{"name", "filter", "pipeline", "upsert", "doc"}]}, values
// in canonical Extended JSON ($date/$numberLong). Prints {"<name>": resulting document | null}:
// null when the filter matches nothing and the update does not upsert. A case with
// "findAndModify": true is answered as that command with new: false is:
// {"value": the document it found (null when it inserted), "document": the resulting one}.
'use strict';
const fs = require('node:fs');
const mingo = require('mingo');

function fromEjson(value) {
  if (Array.isArray(value)) return value.map(fromEjson);
  if (value === null || typeof value !== 'object') return value;
  if ('$date' in value) return new Date(Number(fromEjson(value.$date)));
  if ('$numberLong' in value) return Number(value.$numberLong);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromEjson(v)]));
}

function toEjson(value) {
  if (value instanceof Date) return { $date: value.getTime() };
  if (Array.isArray(value)) return value.map(toEjson);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toEjson(v)]));
}

// What an upsert starts from: the filter's plain equality fields (MongoDB's rule).
function upsertBase(filter) {
  return Object.fromEntries(
    Object.entries(filter).filter(([, v]) => v === null || typeof v !== 'object' || v instanceof Date));
}

const input = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const now = new Date(input.now);
// $$NOW is the server's clock: pinned here, so the test can expect exact times.
function pinNow(value) {
  if (value === '$$NOW') return { $literal: now };
  if (Array.isArray(value)) return value.map(pinNow);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, pinNow(v)]));
}
const output = {};
for (const c of input.cases) {
  const filter = fromEjson(c.filter);
  const doc = c.doc === null ? null : fromEjson(c.doc);
  const matched = doc !== null && new mingo.Query(filter).test(doc);
  let start = null;
  if (matched) start = doc;
  else if (c.upsert) start = upsertBase(filter);
  const result = start === null
    ? null
    : toEjson(mingo.aggregate([start], pinNow(fromEjson(c.pipeline)))[0]);
  output[c.name] = c.findAndModify
    ? { value: matched ? toEjson(doc) : null, document: result }
    : result;
}
process.stdout.write(JSON.stringify(output));
