// libpg_query's four calls that pg_script.cpp makes, reached through one table. The library links
// libpg_query and the table points straight at it (pg_parser.cpp). The CLI leaves it out: its
// ~190 KB of pointer tables cost every start-up a relocation pass, 59 of a SQLite boot check's
// 388 page faults, while only a run that parses PostgreSQL scripts needs it. The CLI loads
// the table from its module (libmigronaut-pg-parser.so, built from pg_parser.cpp) on first use,
// in src/store/module.cpp.
#pragma once

#include <pg_query.h>

// The table's name in the module, for dlsym.
#define MIGRONAUT_PG_PARSER_SYMBOL "migronaut_pg_parser"

namespace migronaut {

struct PgParser {
  PgQueryParseResult (*parse)(const char* input);
  void (*free_parse_result)(PgQueryParseResult result);
  PgQuerySplitResult (*split_with_scanner)(const char* input);
  void (*free_split_result)(PgQuerySplitResult result);
};

const PgParser& pg_parser();

}  // namespace migronaut
